// The decision at hand on the review page: the confirmation of a decision (danger
// actions and those the agent marked confirm), Ctrl/Cmd+Enter to send a comment
// (the page's composer or a block's thread),
// and the page's keyboard shortcuts, listed behind "?". No shortcut decides: the
// ones that touch the decision only move the focus to it. Enter in a field never
// decides either: without script the decision bar's first element, a submit
// button of the form that submits nowhere (templates/review.tmpl part-dbar), takes
// the browser's implicit submission from every kind of field; with it the handler
// below stops the key first.
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("review")) return;
  function $(sel) { return document.querySelector(sel); }

  // The version of the page the person is deciding on, when the page says it
  // (data-page-version, or the decision form's page_version); "" otherwise.
  function version() {
    var el = $("[data-page-version]");
    if (el) return el.getAttribute("data-page-version") || "";
    var input = $("#decide input[name=page_version], input[name=page_version][form=decide]");
    return input ? input.value : "";
  }
  // folioConfirmDecision asks before an action is sent, naming it and the page (and
  // the version seen, when known); resolves true to send.
  window.folioConfirmDecision = function (label, danger) {
    var title = ($("#page-title") || {}).textContent || document.title;
    var v = version();
    return window.folioConfirm({
      title: label + "?",
      text: "You are about to send “" + label + "” on “" + title.trim() + "”" + (v ? " (version " + v + ")" : "") + ". This decision cannot be undone.",
      yes: "Yes, " + label, danger: danger, kind: "decision"
    });
  };

  function typing(el) {
    if (!el || !el.tagName) return false;
    var t = el.tagName;
    return t === "INPUT" || t === "TEXTAREA" || t === "SELECT" || el.isContentEditable;
  }
  function jump(sel) {
    var el = $(sel);
    if (!el) return;
    el.scrollIntoView({ block: "start" });
    if (!el.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|TEXTAREA|SELECT)$/.test(el.tagName)) el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
  }
  var shortcuts = [
    ["d", "Go to the decision", function () { jump($("#decide-h") ? "#decide-h" : "#part-state"); }],
    ["b", "Go to the decision bar", function () { var b = $(".dbar-actions .bt, .dbar-jump"); if (b) b.focus(); }],
    ["c", "Write a comment", function () { var t = $("#comment-text"); if (t && !t.closest("[hidden]")) { t.scrollIntoView({ block: "center" }); t.focus(); } }],
    ["m", "Comment on this block (the one holding the focus, else the first in view), in place", function () { var b = blockHere(); if (b && window.folioCommentOn) window.folioCommentOn(b, null); }],
    ["t", "Back to the top", function () { jump("#page-title"); }],
    ["n", "Next change since you last looked", function () { if (window.folioNextChange) window.folioNextChange(); }],
    ["?", "Show these shortcuts", function () { help(); }]
  ];
  // blockHere is the top-level block the focus is in, else the first one whose
  // box reaches into the window below the decision bar.
  function blockHere() {
    var a = document.activeElement, b = a && a.closest ? a.closest("#blocks [data-block-id]") : null;
    if (b) return b;
    var all = document.querySelectorAll("#blocks [data-block-id]"), top = 0, bar = $(".dbar");
    if (bar && bar.getBoundingClientRect().top < 100) top = bar.getBoundingClientRect().bottom;
    for (var i = 0; i < all.length; i++) {
      var r = all[i].getBoundingClientRect();
      if (r.bottom > top + 24 && r.top < window.innerHeight) return all[i];
    }
    return null;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function help() {
    if ($("dialog.keys")) return;
    var dlg = el("dialog", "confirm keys");
    dlg.setAttribute("aria-labelledby", "keys-h");
    var h = el("h2", "", "Keyboard shortcuts"); h.id = "keys-h";
    dlg.appendChild(h);
    var dl = el("dl");
    shortcuts.forEach(function (s) { var dt = el("dt"); dt.appendChild(el("kbd", "", s[0])); dl.appendChild(dt); dl.appendChild(el("dd", "", s[1])); });
    var dt = el("dt"); dt.appendChild(el("kbd", "", "Ctrl+Enter")); dl.appendChild(dt);
    dl.appendChild(el("dd", "", "Send the comment you are writing (⌘+Enter on a Mac)"));
    dlg.appendChild(dl);
    dlg.appendChild(el("p", "muted", "No key decides: Enter in a field never sends a decision, and every decision is a button you press."));
    var row = el("div", "decide-actions"), close = el("button", "bt bt-secondary", "Close");
    close.type = "button";
    row.appendChild(close);
    dlg.appendChild(row);
    body.appendChild(dlg);
    var opener = document.activeElement;
    var done = function () { dlg.close(); dlg.remove(); if (opener && opener.focus) opener.focus(); };
    close.addEventListener("click", done);
    dlg.addEventListener("cancel", function (e) { e.preventDefault(); done(); });
    dlg.showModal();
    close.focus();
  }

  // Enter in a one-line field of the decision form or of a comment form sends
  // nothing: a decision, or a comment, goes by its button (or Ctrl+Enter in the
  // comment's text), never on a key meant to end a name or a line number.
  function enterInField(e) {
    var t = e.target, f = t && t.form;
    return e.key === "Enter" && !!f && (f.id === "decide" || f.id === "composer" || f.hasAttribute("data-thread-form")) && t.tagName !== "TEXTAREA" && t.tagName !== "BUTTON";
  }
  // keypress too: it is what submits, and not every source of key events (input
  // methods, automation) skips it after a cancelled keydown.
  document.addEventListener("keypress", function (e) { if (enterInField(e)) e.preventDefault(); });
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    // Enter in such a field does nothing (without script the decision form's and
    // a thread form's guard button takes it; the composer needs script).
    if (enterInField(e)) {
      e.preventDefault();
      return;
    }
    // Ctrl/Cmd+Enter in the comment box sends the comment (never a decision).
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && t && (t.id === "comment-text" || t.hasAttribute("data-comment-box"))) {
      e.preventDefault();
      var form = t.form;
      if (form && form.requestSubmit) form.requestSubmit(); else if (form) form.dispatchEvent(new Event("submit", { cancelable: true, bubbles: true }));
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(t) || $("dialog[open]")) return;
    for (var i = 0; i < shortcuts.length; i++) {
      if (e.key === shortcuts[i][0]) {
        e.preventDefault();
        shortcuts[i][2]();
        return;
      }
    }
  });

  // Room for the bar: where it is fixed at the bottom (narrow screens), --dbar-h is
  // its height, which the page keeps as bottom padding and scroll padding
  // (decide.css), so nothing scrolled to the bottom edge is under it; where it
  // sticks to the top (wide screens), --dbar-top is, kept as top scroll padding, so
  // nothing the focus or a jump scrolls to the top edge is under it. When the bar
  // grows (a live-change notice, "the page changed"), the page scrolls by as much,
  // so what was just above the bar stays in view, uncovered.
  var bar = $(".dbar");
  if (bar && window.ResizeObserver) {
    var last = 0;
    new ResizeObserver(function () {
      var fixed = getComputedStyle(bar).position === "fixed", bh = Math.ceil(bar.getBoundingClientRect().height);
      var h = fixed ? bh : 0;
      document.documentElement.style.setProperty("--dbar-h", h + "px");
      document.documentElement.style.setProperty("--dbar-top", (fixed ? 0 : bh) + "px");
      if (last && h > last) window.scrollBy(0, h - last);
      last = h;
    }).observe(bar);
  }
})();
