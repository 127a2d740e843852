// "Changed since you last looked" on the review page (issue 32 item 4; the rules
// are in docs/behaviour.md). The page knows, per part of its content, the version
// at which it last changed (#content-changes, from page.ContentChanges) and the
// version the person last saw: their browser's (localStorage) and, signed in, the
// server's record (body data-seen), whichever is newer. Blocks changed since are
// marked in words ("Changed since you last looked"), summed up at the top with a
// "Next change" button (and the n key, decide.js), and blocks that change while
// the person reads are marked too ("Changed while you were reading") and announced
// in a notice that links to them. A decision about a version older than the newest
// the page knows is not sent: the decision bar says what changed (app.js asks
// folioStale before sending). The version drawn counts as seen once the page is
// visible; a live change counts once the person follows the notice to it.
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("review")) return;
  var pageId = body.getAttribute("data-page");
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function esc(id) { return window.CSS && CSS.escape ? CSS.escape(id) : id; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  var drawn = +body.getAttribute("data-version") || 0; // the version this load drew
  var current = drawn; // the newest version the page knows of
  var changes = {};
  function readChanges() {
    var c = $("#content-changes");
    if (!c) return;
    try { changes = JSON.parse(c.getAttribute("data-changes") || "{}") || {}; } catch (e) { changes = {}; }
    current = Math.max(current, +c.getAttribute("data-version") || 0);
  }
  readChanges();

  // ---- what this browser remembers: page id -> [version, when], the newest 500 ----
  var KEY = "folio.seen", KEEP = 500;
  function remembered() {
    try { return JSON.parse(window.localStorage.getItem(KEY) || "{}") || {}; } catch (e) { return {}; }
  }
  function remember(v) {
    try {
      var all = remembered(), ids = Object.keys(all);
      all[pageId] = [Math.max(v, (all[pageId] || [0])[0]), Date.now()];
      if (ids.length >= KEEP) {
        ids.sort(function (a, b) { return all[a][1] - all[b][1]; });
        ids.slice(0, ids.length - KEEP + 1).forEach(function (id) { if (id !== pageId) delete all[id]; });
      }
      window.localStorage.setItem(KEY, JSON.stringify(all));
    } catch (e) { /* private mode: nothing remembered */ }
  }
  var local = (remembered()[pageId] || [0])[0] || 0;
  var server = +body.getAttribute("data-seen") || 0;
  var since = Math.max(local, server); // 0: a first visit, nothing to mark

  var csrf = ($("meta[name=csrf-token]") || {}).content || "";
  var recorded = 0;
  // record keeps v as seen: in this browser, and for a signed-in person on the
  // server (so their other browsers know it too).
  function record(v) {
    if (v <= recorded) return;
    recorded = v;
    remember(v);
    if (!csrf || !window.fetch) return;
    fetch("/internal/pages/" + encodeURIComponent(pageId) + "/seen", {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ version: v })
    }).catch(function () {});
  }
  function recordWhenVisible() {
    if (document.visibilityState === "visible") { record(drawn); return; }
    document.addEventListener("visibilitychange", function once() {
      if (document.visibilityState !== "visible") return;
      document.removeEventListener("visibilitychange", once);
      record(drawn);
    });
  }

  // ---- marks ----
  function blockVersion(id) { return +((changes.blocks || {})[id] || 0); }
  function kindOf(id) {
    var v = blockVersion(id);
    if (v > drawn) return "live";
    if (since && v > since) return "since";
    return "";
  }
  var labels = { since: "Changed since you last looked", live: "Changed while you were reading" };
  function mark(blk) {
    var id = blk.getAttribute("data-block-id"), kind = kindOf(id), old = $(":scope > .since-mark", blk);
    blk.classList.toggle("blk-since", !!kind);
    if (!kind) { if (old) old.remove(); return; }
    if (old && old.getAttribute("data-kind") === kind) return;
    if (old) old.remove();
    var p = el("p", "since-mark since-" + kind);
    p.setAttribute("data-kind", kind);
    p.appendChild(el("span", "", labels[kind] + " (version " + blockVersion(id) + ")"));
    blk.insertBefore(p, blk.firstChild);
  }
  // markAll runs on every element a redraw brings (folioBlocks): one of the head
  // brings the page's latest changes, a block fresh markup; either way every block
  // is marked anew (the two may land in either order).
  function markAll(scope) {
    if (!scope) return;
    if (scope === document || (scope.closest && scope.closest("#part-head"))) readChanges();
    $$("#blocks [data-block-id]").forEach(mark);
  }
  (window.folioBlocks = window.folioBlocks || []).push(markAll);

  function marked() { return $$("#blocks .blk-since"); }
  function nameOf(blk) {
    var h = blk && document.getElementById(blk.getAttribute("aria-labelledby") || "");
    return h ? h.textContent.trim() : "";
  }
  // go brings the block into view below the bar and gives it the focus.
  function go(blk) {
    if (!blk) return;
    if (!blk.hasAttribute("tabindex")) blk.setAttribute("tabindex", "-1");
    blk.scrollIntoView({ block: "start" });
    blk.focus({ preventScroll: true });
    if (blk.querySelector(".since-live")) record(current);
  }
  var at = -1;
  // folioNextChange moves to the next marked block after the one last visited (or
  // after the focus), round to the first.
  window.folioNextChange = function () {
    var list = marked();
    if (!list.length) { say("No blocks changed since you last looked."); return; }
    var focus = document.activeElement, i = list.indexOf(focus && focus.closest ? focus.closest("#blocks .blk-since") : null);
    at = ((i >= 0 ? i : at) + 1) % list.length;
    go(list[at]);
    var pos = $("#since .since-pos");
    if (pos) pos.textContent = "Change " + (at + 1) + " of " + list.length + (nameOf(list[at]) ? ": " + nameOf(list[at]) : "") + ".";
  };

  // ---- the summary at the top ----
  function fieldsSince(v) {
    return ["title", "summary", "actions"].filter(function (f) { return +(changes[f] || 0) > v; });
  }
  function removedSince(v) {
    var r = changes.removed || {};
    return Object.keys(r).filter(function (id) { return +r[id] > v; }).sort();
  }
  function summary() {
    var box = $("#since");
    if (!box || !since || since >= drawn) return;
    var n = $$("#blocks [data-block-id]").filter(function (b) { var v = blockVersion(b.getAttribute("data-block-id")); return v > since && v <= drawn; }).length;
    var removed = removedSince(since).length, fields = fieldsSince(since);
    if (!n && !removed && !fields.length) return;
    box.textContent = "";
    var text = el("p", "since-text");
    var parts = [];
    if (n) parts.push(plural(n, "block") + " changed");
    if (removed) parts.push(plural(removed, "block") + " removed");
    if (fields.length) parts.push("the " + fields.join(", ") + " changed");
    text.appendChild(el("strong", "", parts.join("; ").replace(/^./, function (c) { return c.toUpperCase(); }) + " since version " + since + ", when you last looked"));
    text.appendChild(document.createTextNode(" (now version " + drawn + ")."));
    box.appendChild(text);
    if (n) {
      var row = el("p", "since-row"), next = el("button", "bt bt-secondary since-next", "Next change");
      next.type = "button";
      next.setAttribute("aria-keyshortcuts", "n");
      next.addEventListener("click", window.folioNextChange);
      row.appendChild(next);
      row.appendChild(el("span", "muted since-keys", "or press n"));
      row.appendChild(el("span", "since-pos"));
      box.appendChild(row);
    }
    box.hidden = false;
  }

  // ---- live changes: a notice that links to them ----
  var notice = $("#live-change"), liveFirst = "";
  function say(text, blockId) {
    if (!notice) return;
    notice.textContent = "";
    notice.appendChild(el("span", "", text));
    if (blockId !== undefined) {
      var show = el("a", "live-change-show", "Show the change");
      var blk = blockId ? $("#blocks [data-block-id=\"" + esc(blockId) + "\"]") : null;
      show.href = "#" + (blk && blk.id ? blk.id : "page-title");
      show.addEventListener("click", function (e) {
        var target = liveFirst ? $("#blocks [data-block-id=\"" + esc(liveFirst) + "\"]") : null;
        if (!target) { record(current); return; }
        e.preventDefault();
        go(target);
        record(current);
        notice.hidden = true;
      });
      notice.appendChild(show);
    }
    var close = el("button", "link live-change-close", "Dismiss");
    close.type = "button";
    close.addEventListener("click", function () { notice.hidden = true; });
    notice.appendChild(close);
    notice.hidden = false;
  }
  document.addEventListener("folio:change", function (e) {
    var ev = e.detail || {}, d = ev.data || {}, t = ev.type, v = +d.version || 0, ids = [];
    if (!v) return;
    current = Math.max(current, v);
    if (t === "blocks.appended") ids = (d.newBlocks || []).map(function (b) { return b.id; });
    else if ((t === "block.updated" || t === "block.inserted") && d.block) ids = [d.block.id];
    changes.blocks = changes.blocks || {};
    ids.forEach(function (id) { changes.blocks[id] = v; });
    var what;
    if (t === "blocks.appended") what = plural(ids.length, "block") + " added";
    else if (t === "block.inserted") what = "1 block added";
    else if (t === "block.updated") what = "1 block changed";
    else if (t === "blocks.reordered") what = "the blocks were reordered";
    else what = "its " + (d.fields || ["content"]).join(", ") + " changed";
    liveFirst = ids.length ? ids[0] : "";
    say("The page changed while you were reading (now version " + current + "): " + what + ".", ids.length ? ids[0] : "");
    $$("#blocks [data-block-id]").forEach(mark);
    // A decision being confirmed is about the version the person saw: the dialog
    // closes, and the bar says what changed before anything is sent.
    $$("dialog[open][data-kind=decision]").forEach(function (dlg) { dlg.dispatchEvent(new Event("cancel", { cancelable: true })); });
  });

  // folioStale answers, for a decision about version seen, what changed since
  // (the shape of a page_changed refusal's details), or null when nothing did.
  window.folioStale = function (seen) {
    if (!seen || current <= seen) return null;
    var ids = $$("#blocks [data-block-id]").map(function (b) { return b.getAttribute("data-block-id"); })
      .filter(function (id) { return blockVersion(id) > seen; });
    return { reason: "page_changed", page_version: seen, current_version: current, changed_blocks: ids, removed_blocks: removedSince(seen), changed_fields: fieldsSince(seen) };
  };
  // folioSayChanged puts a refused or held decision's reason in the decision bar.
  window.folioSayChanged = function (d) {
    var bar = $("#part-dbar .dbar-in");
    if (!bar) return;
    var p = $(".dbar-changed", bar) || el("p", "dbar-changed");
    p.setAttribute("role", "alert");
    var n = (d.changed_blocks || []).length;
    p.textContent = "The page changed (version " + d.page_version + " → " + d.current_version + ")" + (n ? ": " + plural(n, "block") + " changed" : "") +
      ". Nothing was sent: review the changes, then decide again.";
    bar.insertBefore(p, bar.firstChild);
  };

  markAll(document);
  summary();
  recordWhenVisible();
})();
