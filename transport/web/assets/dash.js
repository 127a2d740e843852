// The dashboard: its forms answer in place (the same posts the page makes without
// JavaScript), the inbox follows the workspace's event stream and redraws its list
// from the server's own fragment, and the unread count leads the title.
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("dash")) return;
  function $(sel, root) { return (root || document).querySelector(sel); }
  var csrf = ($("meta[name=csrf-token]") || {}).content || "";
  var baseTitle = document.title.replace(/^\(\d+\) /, "");

  function unread(n) {
    document.title = (n > 0 ? "(" + n + ") " : "") + baseTitle;
    var link = $('.dash-nav a[href="/"], .dash-nav a[href^="/?w="]');
    if (!link) return;
    var count = $(".count", link);
    if (n > 0 && !count) {
      count = document.createElement("span");
      count.className = "count";
      link.appendChild(document.createTextNode(" "));
      link.appendChild(count);
    }
    if (count) {
      if (n > 0) { count.textContent = String(n); count.setAttribute("aria-label", n + " unread"); } else count.remove();
    }
  }

  // Redraw the inbox list from its fragment; focus stays where it was when the same
  // control still exists (by the form's action), else on the list's status line.
  // A redraw a live event asks for keeps the focus of a person inside the list too,
  // and a redraw asked for while one is in flight runs after it (the one in flight
  // may have fetched the list before the person's own change).
  var refreshing = null;

  function refreshList(focusAction) {
    var box = $("#inbox-list"), list = box && $(".inbox", box);
    if (!list) return Promise.resolve();
    if (!focusAction) {
      var had = document.activeElement, form = had && box.contains(had) && had.closest ? had.closest("form") : null;
      focusAction = form ? form.getAttribute("action") : null;
    }
    if (refreshing) {
      var want = focusAction;
      return refreshing.then(function () { return refreshList(want); });
    }
    refreshing = fetch(list.getAttribute("data-self"), { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.text(); })
      .then(function (html) {
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        var fresh = tpl.content.firstElementChild;
        if (!fresh) return;
        if (window.folioTimes) window.folioTimes(fresh);
        window.folioStreams.merge($(".inbox", box), fresh, box);
        unread(parseInt(fresh.getAttribute("data-unread"), 10) || 0);
        if (focusAction) {
          // A star's form toggles its action (star <-> unstar): the same button under
          // its other action is still the control the person was on.
          var again = box.querySelector('form[action="' + focusAction + '"] button') ||
            box.querySelector('form[action="' + focusAction.replace(/\/(un)?star(\?|$)/, function (_, un, end) { return (un ? "/star" : "/unstar") + end; }) + '"] button');
          var target = again || $(".list-range", box) || box;
          if (!again) target.setAttribute("tabindex", "-1");
          target.focus();
        }
      })
      .catch(function () { /* the next event or a reload will redraw it */ })
      .then(function () { refreshing = null; });
    return refreshing;
  }

  function post(action, form) {
    var data = new URLSearchParams(new FormData(form));
    return fetch(action, { method: "POST", body: data, redirect: "manual", credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf } });
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.classList || !form.classList.contains("inbox-op")) return;
    e.preventDefault();
    var action = form.getAttribute("action");
    var m = /^(.*\/)(star|unstar)(\?.*)?$/.exec(action);
    post(action, form).then(function (r) {
      if (r.type !== "opaqueredirect" && !r.ok) { form.submit(); return; }
      // A star toggles: focus goes to the same button under its new action.
      var next = m ? m[1] + (m[2] === "star" ? "unstar" : "star") + (m[3] || "") : action;
      refreshList(next);
    }, function () { form.submit(); });
  });

  // Opening an entry's page marks it read (as the "Mark read" form would).
  document.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a[data-read]") : null;
    if (!a || !a.closest(".entry-unread")) return;
    var data = new URLSearchParams({ csrf: csrf, back: "/" });
    fetch(a.getAttribute("data-read"), { method: "POST", body: data, redirect: "manual", keepalive: true,
      credentials: "same-origin", headers: { "X-CSRF-Token": csrf } }).catch(function () {});
  });

  var live = $("#live");
  var src = body.getAttribute("data-events");
  if (src && window.EventSource && $("#inbox-list")) {
    var es = new EventSource(src);
    var timer = null;
    window.folioStreams.closeOnHide(function () { es.close(); }); // the back/forward cache (shared.js)
    es.onopen = function () { if (live) { live.hidden = false; live.classList.remove("off"); live.textContent = "Live"; } };
    es.onerror = function () { if (live) { live.classList.add("off"); live.textContent = "Reconnecting…"; } };
    es.onmessage = function () {
      clearTimeout(timer);
      timer = setTimeout(function () { refreshList(null); }, 150); // a burst of events: one redraw
    };
  }
})();
