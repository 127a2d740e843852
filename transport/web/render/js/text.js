// Behaviour of the text group's blocks. All of it is progressive: without script
// every table row shows, the log box scrolls by hand, and no control
// is dead (the Copy button, sort buttons and "Show" buttons exist only once this
// runs). init is idempotent (data-tx-on marks what is wired), since the page calls
// it again on fragments inserted live.
//  - table.tbl[data-sortable]: header buttons sort the rows (numbers by data-n,
//    text by locale), the sorted header carries aria-sort.
//  - table.tbl[data-max-rows]: only the first rows show, until "Show all N rows".
//  - .logs[data-autoscroll]: kept scrolled to the newest line, on load and when
//    lines are appended, unless the reader has scrolled up.
//  - [data-code]: the Copy button copies the code's text (line numbers are CSS).
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var collator = window.Intl && Intl.Collator ? new Intl.Collator(undefined, { numeric: true, sensitivity: "base" }) : null;

  function each(scope, sel, fn) {
    Array.prototype.forEach.call(scope.querySelectorAll(sel), fn);
  }
  function once(el) {
    if (el.getAttribute("data-tx-on")) return false;
    el.setAttribute("data-tx-on", "1");
    return true;
  }
  function arrow() {
    var svg = document.createElementNS(SVGNS, "svg");
    var attrs = { "class": "icon", viewBox: "0 0 24 24", width: "13", height: "13", "aria-hidden": "true", focusable: "false",
      fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round" };
    for (var k in attrs) svg.setAttribute(k, attrs[k]);
    var p = document.createElementNS(SVGNS, "path");
    p.setAttribute("d", ARROWS);
    svg.appendChild(p);
    return svg;
  }
  var ARROWS = "M8 9l4-4 4 4M8 15l4 4 4-4", UP = "M12 19V5M6 11l6-6 6 6";
  function status(after) {
    var s = document.createElement("span");
    s.className = "visually-hidden";
    s.setAttribute("role", "status");
    after.parentNode.insertBefore(s, after.nextSibling);
    return s;
  }

  // Tables: sorting and "Show all".
  function sortKey(row, col) {
    var c = row.cells[col];
    var t = c ? c.textContent.trim() : "";
    var n = c && c.hasAttribute("data-n") ? parseFloat(c.getAttribute("data-n")) : NaN;
    return { empty: t === "", num: n, text: t };
  }
  function compare(a, b) {
    var an = !isNaN(a.num), bn = !isNaN(b.num);
    if (an && bn) return a.num - b.num;
    if (an !== bn) return an ? -1 : 1; // numbers before text
    return collator ? collator.compare(a.text, b.text) : (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
  }
  function initTable(table) {
    if (!once(table)) return;
    var body = table.tBodies[0];
    if (!body || !table.tHead || !table.tHead.rows.length) return;
    var rows = Array.prototype.filter.call(body.rows, function (r) { return !r.classList.contains("tbl-empty"); });
    var max = parseInt(table.getAttribute("data-max-rows"), 10);
    var limited = max > 0 && rows.length > max;
    function applyLimit() {
      var shown = 0;
      Array.prototype.forEach.call(body.rows, function (r) { r.hidden = limited && shown++ >= max; });
    }
    if (limited) {
      var wrap = table.parentNode;
      var more = document.createElement("button");
      more.type = "button";
      more.className = "tbl-more";
      more.textContent = "Show all " + rows.length + " rows";
      wrap.parentNode.insertBefore(more, wrap.nextSibling);
      more.addEventListener("click", function () {
        limited = false;
        applyLimit();
        wrap.focus();
        more.parentNode.removeChild(more);
      });
      applyLimit();
    }
    if (!table.hasAttribute("data-sortable") || rows.length < 2) return;
    var order = rows.slice();
    var ths = Array.prototype.slice.call(table.tHead.rows[0].cells);
    ths.forEach(function (th, col) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.className = "tbl-sort";
      while (th.firstChild) btn.appendChild(th.firstChild);
      btn.appendChild(arrow());
      th.appendChild(btn);
      btn.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        var keyed = order.map(function (r, i) { return { row: r, i: i, k: sortKey(r, col) }; });
        keyed.sort(function (x, y) {
          if (x.k.empty !== y.k.empty) return x.k.empty ? 1 : -1; // empty cells last either way
          var c = x.k.empty ? 0 : compare(x.k, y.k);
          if (dir === "descending") c = -c;
          return c || x.i - y.i;
        });
        var frag = document.createDocumentFragment();
        keyed.forEach(function (e) { frag.appendChild(e.row); });
        body.appendChild(frag);
        ths.forEach(function (h) {
          h.removeAttribute("aria-sort");
          var p = h.querySelector(".tbl-sort path");
          if (p) p.setAttribute("d", h === th ? UP : ARROWS);
        });
        th.setAttribute("aria-sort", dir);
        applyLimit();
      });
    });
  }

  // Logs: follow the newest line unless the reader scrolled away from it.
  function initLog(box) {
    if (!once(box)) return;
    var follow = true;
    function toEnd() { box.scrollTop = box.scrollHeight; }
    toEnd();
    box.addEventListener("scroll", function () {
      follow = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
    });
    if (window.MutationObserver) {
      new MutationObserver(function () { if (follow) toEnd(); }).observe(box, { childList: true, subtree: true });
    }
  }

  // Code: the Copy button.
  function copyFallback(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "visually-hidden";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }
  function initCopy(wrap) {
    var btn = wrap.querySelector("[data-copy]");
    var code = wrap.querySelector("pre > code");
    if (!btn || !code || !once(btn)) return;
    var label = btn.querySelector(".code-copy-text") || btn;
    var said = status(btn);
    var timer = 0;
    function done(ok) {
      label.textContent = ok ? "Copied" : "Copy failed";
      said.textContent = ok ? "Code copied to the clipboard" : "The code could not be copied";
      btn.classList.toggle("is-done", ok);
      btn.focus();
      clearTimeout(timer);
      timer = setTimeout(function () {
        label.textContent = "Copy";
        said.textContent = "";
        btn.classList.remove("is-done");
      }, 2000);
    }
    btn.addEventListener("click", function () {
      var text = code.textContent;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(copyFallback(text)); });
      } else {
        done(copyFallback(text));
      }
    });
    btn.parentNode.hidden = false;
    btn.hidden = false;
  }

  function scan(scope) {
    scope = scope || document;
    each(scope, "table.tbl[data-sortable], table.tbl[data-max-rows]", initTable);
    each(scope, ".logs[data-autoscroll]", initLog);
    each(scope, "[data-code]", initCopy);
  }
  window.folioBlocks = window.folioBlocks || [];
  window.folioBlocks.push(scan);
  // Wired on DOMContentLoaded, after the page script (app.js) has recorded the
  // blocks as the server drew them (it compares redraws with that).
  if (document.readyState === "complete") scan(); else document.addEventListener("DOMContentLoaded", function () { scan(); });
})();
