// Presence on the review page: who else has this page open now, from the page's
// own event stream (app.js asks for `presence` events and hands each one over as a
// folio:presence DOM event; null while the stream is down). The line sits under
// the page's header, is blank when nobody else is here (its room kept, so nothing
// below it moves when someone comes or goes), and changes only when
// its text does, so a screen reader hears arrivals and departures politely and
// never the same sentence twice. The server's list includes this viewer: a
// signed-in person is left out by their verified address (the site bar's), an
// anonymous viewer by taking one from the anonymous count.
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("review")) return;
  var head = document.getElementById("part-head");
  if (!head) return;
  var line = document.createElement("p");
  line.id = "presence";
  line.className = "presence";
  line.setAttribute("role", "status");
  line.setAttribute("aria-live", "polite");
  line.setAttribute("aria-atomic", "true");
  line.hidden = true; // blank, keeping its room (presence.css)
  var text = line.appendChild(document.createElement("span"));
  head.parentNode.insertBefore(line, head.nextSibling);

  var meEl = document.querySelector(".me-text");
  var me = meEl ? meEl.textContent.trim().toLowerCase() : "";
  var shown = 3; // names spelled out; the rest are counted

  // sentence is what the line says for a presence event's data ("" for nobody).
  function sentence(d) {
    var names = [], extra = (d.others || 0) + (d.anonymous || 0);
    if (!me) extra = Math.max(0, extra - 1); // this tab is one of the anonymous
    (d.people || []).forEach(function (p) { if (p.toLowerCase() !== me) names.push(p); });
    (d.agents || []).forEach(function (a) { names.push(a.replace(/^agent:/, "") + " (agent)"); });
    if (names.length > shown) { extra += names.length - shown; names = names.slice(0, shown); }
    if (!names.length) {
      if (!extra) return "";
      return "Also here: " + (extra === 1 ? "one other person" : extra + " other people");
    }
    var list = names.join(", ");
    if (extra) return "Also here: " + list + " and " + extra + (extra === 1 ? " other" : " others");
    if (names.length > 1) list = names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
    return "Also here: " + list;
  }

  document.addEventListener("folio:presence", function (e) {
    var said = e.detail ? sentence(e.detail) : "";
    if (said === text.textContent) return;
    text.textContent = said;
    line.title = said; // the whole list, where the line ends in an ellipsis
    line.hidden = !said;
  });
})();
