// Lists that follow a stream: "Needs my decision" (the person's own stream, which
// notify.js keeps and announces as folio:counts) and the pages list (its
// workspace's stream). A burst of events gives one redraw from the server's own
// fragment, merged in place (folioStreams.merge), so a redraw never takes a link
// from under a person's pointer or focus.
(function () {
  "use strict";
  function $(sel, root) { return (root || document).querySelector(sel); }

  // redrawer redraws box (its inner list's data-self) when called; calls made
  // while one is in flight make one more after it.
  function redrawer(box, inner) {
    var busy = null, again = false;
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
          window.folioStreams.merge($(inner, box), fresh, box);
        })
        .catch(function () { /* the next event or a reload redraws it */ })
        .then(function () { busy = null; if (again) { again = false; redraw(); } });
    }
    return redraw;
  }

  // follow redraws box on every event of the stream src.
  function follow(box, inner, src) {
    var redraw = redrawer(box, inner), timer = null, live = $("#live");
    var es = new EventSource(src);
    window.folioStreams.closeOnHide(function () { es.close(); });
    es.onopen = function () {
      if (live) { live.hidden = false; live.classList.remove("off"); live.textContent = "Live"; }
      redraw(); // what changed while it was away
    };
    es.onerror = function () { if (live) { live.classList.add("off"); live.textContent = "Reconnecting…"; } };
    es.onmessage = function () { clearTimeout(timer); timer = setTimeout(redraw, 150); };
  }

  var needs = $("#needs-list");
  if (needs) {
    var redraw = redrawer(needs, ".needs"), shown = null;
    document.addEventListener("folio:counts", function (e) {
      var list = e.detail && e.detail.list;
      if (shown !== null && list !== shown) redraw();
      shown = list;
    });
    document.addEventListener("folio:stream", function (e) {
      var live = $("#live");
      if (!live) return;
      live.hidden = false;
      live.classList.toggle("off", !e.detail);
      live.textContent = e.detail ? "Live" : "Reconnecting…";
      if (e.detail) redraw(); // what changed while it was away
    });
  }
  var pages = $("#pages-list"), src = document.body.getAttribute("data-events");
  if (pages && src && window.EventSource) follow(pages, ".dp-list", src);
})();
