// The signed-in person's own stream (GET /decide/stream), on every Folio screen:
// the navigation's counts ("Needs my decision", unread, failed deliveries) follow
// it live, and, once the person asked for it ("Notify me" on "Needs my decision",
// then the browser's own question), each page that newly waits on them or newly
// became overdue shows a browser notification while any Folio tab is open. The
// review page opens the stream only for notifications (it has no navigation).
// The stream is announced to other scripts as folio:counts (its counts event) and
// folio:stream (true when connected, false while reconnecting).
(function () {
  "use strict";
  function $(sel, root) { return (root || document).querySelector(sel); }
  var body = document.body;
  if (!body || !$("meta[name=csrf-token]")) return; // not signed in

  // Notifications: on only when the browser granted them and the person asked.
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
      else state.textContent = on ? "You are notified while a Folio tab is open." : "";
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
  notifyControl();

  // setCount draws n (0: nothing) beside the navigation link data-nav=id.
  function setCount(id, n, label, alert) {
    var link = $('.dash-nav a[data-nav="' + id + '"]');
    if (!link) return;
    var c = $(".count", link);
    if (n > 0 && !c) {
      c = document.createElement("span");
      c.className = "count" + (alert ? " count-alert" : "");
      link.appendChild(document.createTextNode(" "));
      link.appendChild(c);
    }
    if (!c) return;
    if (n > 0) { c.textContent = String(n); c.setAttribute("aria-label", label); } else c.remove();
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }
  function counts(d) {
    setCount("decide", d.decide || 0, plural(d.decide || 0, "page needs", "pages need") + " your decision");
    var ws = body.getAttribute("data-workspace"), w = ws && d.workspaces ? d.workspaces[ws] : null;
    if (w) {
      setCount("deliveries", w.failed || 0, plural(w.failed || 0, "failed delivery", "failed deliveries"), true);
      if (!$("#inbox-list")) setCount("inbox", w.unread || 0, w.unread + " unread"); // the inbox keeps its own
    }
    document.dispatchEvent(new CustomEvent("folio:counts", { detail: d }));
  }
  function notify(n) {
    if (!allowed()) return;
    try {
      var note = new Notification((n.overdue ? "Overdue: " : "Needs your decision: ") + n.title,
        { body: "Open it in Folio to decide.", tag: n.pageId + (n.overdue ? ":overdue" : "") });
      note.onclick = function () { window.focus(); location.href = n.url; };
    } catch (e) { /* a browser that refuses here still has the list */ }
  }

  var dash = body.classList.contains("dash");
  if (!window.EventSource || (!dash && !allowed())) return;
  var es = new EventSource("/decide/stream");
  window.folioStreams.closeOnHide(function () { es.close(); });
  // data-person-stream says whether it is connected (open) or not (reconnecting).
  es.onopen = function () { body.setAttribute("data-person-stream", "open"); document.dispatchEvent(new CustomEvent("folio:stream", { detail: true })); };
  es.onerror = function () { body.setAttribute("data-person-stream", "reconnecting"); document.dispatchEvent(new CustomEvent("folio:stream", { detail: false })); };
  es.addEventListener("counts", function (e) { try { counts(JSON.parse(e.data)); } catch (x) { /* a malformed event is skipped */ } });
  es.addEventListener("needs", function (e) { try { notify(JSON.parse(e.data)); } catch (x) { /* a malformed event is skipped */ } });
})();
