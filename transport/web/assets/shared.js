// What every Folio screen's scripts share (loaded first, before app.js):
// folioStreams.closeOnHide and folioStreams.merge.
(function () {
  "use strict";
  function $(sel, root) { return (root || document).querySelector(sel); }

  // A page left for another stays open in the back/forward cache with its event
  // streams connected, and a browser opens six connections to one origin: every
  // stream is closed when the page is hidden, and a page shown again from the
  // cache reloads, so it shows the present and opens its streams anew.
  var closers = [];
  window.addEventListener("pagehide", function () {
    closers.forEach(function (close) { try { close(); } catch (e) { /* already closed */ } });
    closers = [];
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) location.reload(); });

  // merge brings list (a list part: its .entries, .list-range, .pager) to fresh,
  // entry by entry (by id), in box. An entry that did not change stays the very
  // node it was, so a live redraw never takes a link or button from under a
  // person's pointer, focus or screen reader.
  function merge(list, fresh, box) {
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

  window.folioStreams = {
    // closeOnHide(close): close is called when the page is hidden (its stream ends).
    closeOnHide: function (close) { closers.push(close); },
    merge: merge
  };
})();
