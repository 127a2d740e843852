// Lists that follow event streams: "Needs my decision" (the streams of every
// workspace of the person) and the pages list (its workspace's stream). A burst of
// events gives one redraw from the server's own fragment, merged in place: an
// entry that did not change stays the very node it was, so a redraw never takes a
// link from under a person's pointer or focus. With the person's leave ("Notify
// me", a click, then the browser's own question), the decision list shows a
// browser notification for each page that newly waits on them or newly became
// overdue, while it is open.
(function () {
  "use strict";
  function $(sel, root) { return (root || document).querySelector(sel); }

  // merge brings box's list (selector inner) to fresh's, entry by entry (by id).
  function merge(box, inner, fresh) {
    var list = $(inner, box);
    var ul = list && $(".entries", list), nu = $(".entries", fresh);
    if (!list) return;
    if (!ul || !nu) { box.replaceChild(fresh, list); return; }
    Array.prototype.forEach.call(fresh.attributes, function (a) { list.setAttribute(a.name, a.value); });
    var at = ul.firstElementChild;
    Array.prototype.slice.call(nu.children).forEach(function (li) {
      var had = li.id ? document.getElementById(li.id) : null;
      var keep = had && had.parentNode === ul && had.isEqualNode(li) ? had : li;
      if (keep === at) { at = at.nextElementSibling; return; }
      if (had && keep !== had) { if (had === at) at = at.nextElementSibling; had.remove(); }
      ul.insertBefore(keep, at);
    });
    while (at) { var next = at.nextElementSibling; at.remove(); at = next; }
    [".list-range", ".pager"].forEach(function (sel) {
      var mine = $(sel, list), theirs = $(sel, fresh);
      if (mine && theirs && !mine.isEqualNode(theirs)) mine.replaceWith(theirs);
    });
  }

  // follow redraws box (its inner list's data-self) on every event of streams;
  // after each redraw, then(box).
  function follow(box, inner, streams, then) {
    var busy = null, again = false, timer = null;
    function redraw() {
      if (busy) { again = true; return; }
      var list = $(inner, box);
      if (!list) return;
      busy = fetch(list.getAttribute("data-self"), { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.text(); })
        .then(function (html) {
          var tpl = document.createElement("template");
          tpl.innerHTML = html;
          var fresh = tpl.content.firstElementChild;
          if (!fresh) return;
          if (window.folioTimes) window.folioTimes(fresh);
          merge(box, inner, fresh);
          if (then) then(box);
        })
        .catch(function () { /* the next event or a reload redraws it */ })
        .then(function () { busy = null; if (again) { again = false; redraw(); } });
    }
    var live = $("#live"), open = 0, sources = [];
    // A page left for another keeps its streams' connections while the browser
    // holds it for Back (the back/forward cache), and a browser opens six to one
    // origin: close them when the page is hidden, open them again when it shows.
    window.addEventListener("pagehide", function () { sources.forEach(function (es) { es.close(); }); sources = []; open = 0; });
    window.addEventListener("pageshow", function (e) { if (e.persisted) connect(); });
    function connect() { streams.forEach(function (src) {
      var es = new EventSource(src), up = false;
      sources.push(es);
      es.onopen = function () {
        if (!up) { up = true; open++; }
        if (live && open === streams.length) { live.hidden = false; live.classList.remove("off"); live.textContent = "Live"; }
        redraw(); // what changed while it was away
      };
      es.onerror = function () {
        if (up) { up = false; open--; }
        if (live) { live.classList.add("off"); live.textContent = "Reconnecting…"; }
      };
      es.onmessage = function () { clearTimeout(timer); timer = setTimeout(redraw, 150); };
    }); }
    connect();
  }

  // Notifications: on only when the browser granted them and the person asked here.
  var KEY = "folio-notify";
  function allowed() {
    try { return "Notification" in window && Notification.permission === "granted" && localStorage.getItem(KEY) === "on"; } catch (e) { return false; }
  }
  function notifyControl() {
    var box = $("[data-notify]");
    if (!box || !("Notification" in window)) return;
    var btn = $("[data-notify-on]", box), state = $("[data-notify-state]", box);
    function show() {
      var on = allowed();
      btn.textContent = on ? "Stop notifying me" : "Notify me";
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      if (Notification.permission === "denied") state.textContent = "This browser blocks notifications from this site; allow them in its site settings.";
      else state.textContent = on ? "You are notified while this tab is open." : "";
    }
    box.hidden = false;
    show();
    btn.addEventListener("click", function () {
      if (allowed()) { try { localStorage.removeItem(KEY); } catch (e) {} show(); return; }
      Promise.resolve(Notification.requestPermission()).then(function (p) {
        if (p === "granted") { try { localStorage.setItem(KEY, "on"); } catch (e) {} }
        show();
      });
    });
  }

  // seen holds each listed page's overdue state as last drawn; rows already there
  // when the screen opened are not news.
  var seen = null;
  function rowsOf(box) {
    var out = {};
    Array.prototype.forEach.call(box.querySelectorAll(".nd-row"), function (li) {
      out[li.id] = { title: li.getAttribute("data-title") || "", overdue: li.getAttribute("data-overdue") === "1", href: ($("a", li) || {}).href };
    });
    return out;
  }
  // count keeps the navigation's "Needs my decision" count with the list's total.
  function count(box) {
    var list = $(".needs", box), link = $('.dash-nav a[data-nav="decide"]');
    if (!list || !link) return;
    var n = parseInt(list.getAttribute("data-total"), 10) || 0, c = $(".count", link);
    if (n > 0 && !c) {
      c = document.createElement("span");
      c.className = "count";
      link.appendChild(document.createTextNode(" "));
      link.appendChild(c);
    }
    if (!c) return;
    if (n > 0) { c.textContent = String(n); c.setAttribute("aria-label", n + (n === 1 ? " page needs" : " pages need") + " your decision"); } else c.remove();
  }
  function news(box) {
    count(box);
    var now = rowsOf(box), was = seen || now;
    seen = now;
    if (!allowed()) return;
    Object.keys(now).forEach(function (id) {
      var r = now[id], before = was[id];
      var what = !before ? "Needs your decision" : (r.overdue && !before.overdue ? "Overdue" : "");
      if (!what) return;
      try {
        var n = new Notification(what + ": " + r.title, { body: "Open it in Folio to decide.", tag: id + (r.overdue ? ":overdue" : "") });
        n.onclick = function () { window.focus(); location.href = r.href; };
      } catch (e) { /* a browser that refuses here still has the list */ }
    });
  }

  var needs = $("#needs-list");
  if (needs) {
    seen = rowsOf(needs);
    notifyControl();
    var streams = (needs.getAttribute("data-streams") || "").split(" ").filter(Boolean);
    if (window.EventSource && streams.length) follow(needs, ".needs", streams, news);
  }
  var pages = $("#pages-list"), src = document.body.getAttribute("data-events");
  if (pages && src && window.EventSource) follow(pages, ".dp-list", [src], null);
})();
