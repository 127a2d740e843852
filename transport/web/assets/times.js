// Times on every page: a <time data-when datetime="…"> reads "3 minutes ago" (a
// date past a week), in the reader's own time zone on hover. window.folioTimes(scope)
// formats fresh markup after a redraw.
(function () {
  "use strict";
  function relative(d) {
    // Whole seconds, rounded toward zero: a time 6 days 23 h 59 m 59.7 s away reads
    // "in 6 days" now and a moment later alike (rounding read "in 7 days" first, so
    // a redraw a second later changed an entry that had not changed).
    var ms = Date.now() - d.getTime(), future = ms < 0, s = Math.floor(Math.abs(ms) / 1000);
    var units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60]];
    for (var i = 0; i < units.length; i++) {
      var n = Math.floor(s / units[i][1]);
      if (n >= 1) {
        var t = n + " " + units[i][0] + (n > 1 ? "s" : "");
        return future ? "in " + t : t + " ago";
      }
    }
    return future ? "in a moment" : "just now";
  }
  function times(scope) {
    Array.prototype.forEach.call((scope || document).querySelectorAll("time[data-when]"), function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d)) return;
      el.title = d.toLocaleString();
      el.textContent = Math.abs(Date.now() - d) < 7 * 86400000 ? relative(d) : d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
    });
  }
  window.folioTimes = times;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { times(document); }); else times(document);
})();
