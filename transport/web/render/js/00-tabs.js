// Tabs: every [data-tabs] set (the tab block and `tab` labels) becomes a WAI-ARIA tab
// list operable from the keyboard (Left/Right/Home/End move and select). Without
// script the panels simply show one after another under their headings.
(function () {
  "use strict";
  function init(root) {
    if (root.classList.contains("js-on")) return;
    var list = root.querySelector(":scope > [role=tablist]");
    if (!list) return;
    var tabs = Array.prototype.slice.call(list.querySelectorAll("[role=tab]"));
    function select(i, focus) {
      tabs.forEach(function (t, j) {
        var on = i === j;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        var p = document.getElementById(t.getAttribute("aria-controls"));
        if (p) p.hidden = !on;
      });
      if (focus) tabs[i].focus();
    }
    tabs.forEach(function (t, i) {
      t.addEventListener("click", function () { select(i, false); });
      t.addEventListener("keydown", function (e) {
        var k = e.key, n = tabs.length, to = -1;
        if (k === "ArrowRight") to = (i + 1) % n;
        else if (k === "ArrowLeft") to = (i - 1 + n) % n;
        else if (k === "Home") to = 0;
        else if (k === "End") to = n - 1;
        if (to >= 0) { e.preventDefault(); select(to, true); }
      });
    });
    list.hidden = false;
    root.classList.add("js-on");
    select(0, false);
  }
  function scan(scope) {
    if (scope && scope.matches && scope.matches("[data-tabs]")) init(scope); // a redrawn tab set itself
    Array.prototype.forEach.call((scope || document).querySelectorAll("[data-tabs]"), init);
  }
  window.folioBlocks = window.folioBlocks || [];
  window.folioBlocks.push(scan);
  // Wired on DOMContentLoaded, after the page script (app.js) has recorded the
  // blocks as the server drew them (it compares redraws with that).
  if (document.readyState === "complete") scan(); else document.addEventListener("DOMContentLoaded", function () { scan(); });
})();
