// Countdown: every [data-countdown] block ticks once a second ("2d 3h 14m 5s") from
// the time the server rendered, and switches to its expired message when the target
// passes. The ticking text is aria-live="off"; only the switch is announced, by the
// block's separate role="status" element. One shared timer serves every countdown
// on the page; countdowns removed from the page are dropped. Without script the
// server's reading stays as rendered.
(function () {
  "use strict";
  var live = [];
  var timer = 0;
  function text(ms) {
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400); s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    var out = [];
    if (d) out.push(d.toLocaleString("en") + "d");
    if (d || h) out.push(h + "h");
    if (d || h || m) out.push(m + "m");
    out.push(s + "s");
    return out.join(" ");
  }
  function update(cd) {
    var left = cd.target - Date.now();
    if (left > 0) {
      cd.time.textContent = text(left);
      return true;
    }
    if (cd.box) cd.box.hidden = true;
    if (cd.status && cd.status.textContent !== cd.message) cd.status.textContent = cd.message;
    if (cd.word) cd.word.textContent = "Ended";
    return false;
  }
  function tick() {
    live = live.filter(function (cd) { return document.contains(cd.el) && update(cd); });
    if (!live.length && timer) { clearInterval(timer); timer = 0; }
  }
  function init(el) {
    if (el.getAttribute("data-countdown-on")) return;
    el.setAttribute("data-countdown-on", "1");
    var target = Date.parse(el.getAttribute("data-target") || "");
    var time = el.querySelector(".cd-time");
    if (isNaN(target) || !time) return;
    var cd = {
      el: el, target: target, time: time,
      box: el.querySelector(".cd-left"),
      status: el.querySelector(".cd-expired"),
      word: el.querySelector(".cd-until-w"),
      message: el.getAttribute("data-expired") || "Time is up"
    };
    if (update(cd)) {
      live.push(cd);
      if (!timer) timer = setInterval(tick, 1000);
    }
  }
  function scan(scope) {
    Array.prototype.forEach.call((scope || document).querySelectorAll("[data-countdown]"), init);
  }
  window.folioBlocks = window.folioBlocks || [];
  window.folioBlocks.push(scan);
  // Wired on DOMContentLoaded, after the page script (app.js) has recorded the
  // blocks as the server drew them (it compares redraws with that).
  if (document.readyState === "complete") scan(); else document.addEventListener("DOMContentLoaded", function () { scan(); });
})();

// Gallery carousel: the strip scrolls sideways on its own (scroll snap, keyboard
// focusable); this adds the previous/next buttons the template renders hidden,
// moving one item at a time and disabled at either end.
(function () {
  "use strict";
  function init(strip) {
    if (strip.getAttribute("data-carousel-on")) return;
    strip.setAttribute("data-carousel-on", "1");
    var nav = strip.nextElementSibling;
    if (!nav || !nav.classList.contains("gal-nav")) return;
    var prev = nav.querySelector(".gal-prev"), next = nav.querySelector(".gal-next");
    if (!prev || !next) return;
    function step() {
      var li = strip.querySelector("li");
      return li ? li.getBoundingClientRect().width + 12 : strip.clientWidth * 0.8;
    }
    function state() {
      prev.disabled = strip.scrollLeft <= 4;
      next.disabled = strip.scrollLeft + strip.clientWidth >= strip.scrollWidth - 4;
    }
    prev.addEventListener("click", function () { strip.scrollBy({ left: -step() }); });
    next.addEventListener("click", function () { strip.scrollBy({ left: step() }); });
    strip.addEventListener("scroll", state, { passive: true });
    if (strip.scrollWidth > strip.clientWidth + 1) nav.hidden = false;
    state();
  }
  function scan(scope) {
    Array.prototype.forEach.call((scope || document).querySelectorAll("[data-carousel]"), init);
  }
  window.folioBlocks = window.folioBlocks || [];
  window.folioBlocks.push(scan);
  // Wired on DOMContentLoaded, after the page script (app.js) has recorded the
  // blocks as the server drew them (it compares redraws with that).
  if (document.readyState === "complete") scan(); else document.addEventListener("DOMContentLoaded", function () { scan(); });
})();
