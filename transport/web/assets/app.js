// The review page's behaviour. Everything works without it (the decision is a plain
// form post); with it the page counts its view, follows the page's event stream and
// redraws what changed from server-rendered parts, sends decisions, comments and
// files without a reload, and shows the server's messages next to the fields they
// are about. It never builds markup from data: text goes in with textContent, and
// markup only ever comes from this origin's server-rendered parts.
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("review")) return;
  var pageId = body.getAttribute("data-page");
  var base = "/v1/pages/" + encodeURIComponent(pageId);
  var partBase = "/p/" + encodeURIComponent(pageId);

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  // Writes of a signed-in person carry their session's CSRF token (the cookie alone
  // is refused, so another site cannot write in their name).
  var csrf = ($("meta[name=csrf-token]") || {}).content || "";
  function headers(h) {
    h = h || {};
    if (csrf) h["X-CSRF-Token"] = csrf;
    return h;
  }
  function store(key, value) {
    try {
      if (value === undefined) return window.localStorage.getItem(key);
      window.localStorage.setItem(key, value);
    } catch (e) { /* private mode: nothing remembered */ }
    return null;
  }

  // ---- block behaviours (tabs, tables, countdowns…) on fresh markup ----
  function enhance(scope) {
    (window.folioBlocks || []).forEach(function (fn) { try { fn(scope); } catch (e) { /* one block's script must not stop the rest */ } });
    if (window.folioTimes) window.folioTimes(scope);
    comments(scope);
    markLines(scope);
    uploads(scope);
    formUploads(scope);
  }

  // ---- parts: redraw one part from the server, keeping what the person typed ----
  var typed = "#decide input, #decide textarea, #composer textarea, #composer input, .thread-form textarea, .thread-form input, .thread-form select, [name^='form_data.'], [data-edit] input, [data-edit] textarea";
  function saveTyped() {
    var saved = {};
    $$(typed).forEach(function (el) {
      var key = el.id || el.name;
      if (!key) return;
      if (el.type === "checkbox" || el.type === "radio") saved[key + "|" + el.value] = el.checked;
      else if (el.type !== "file") saved[key] = el.value;
    });
    return saved;
  }
  function restoreTyped(saved) {
    $$(typed).forEach(function (el) {
      var key = el.id || el.name;
      if (el.type === "checkbox" || el.type === "radio") {
        if ((key + "|" + el.value) in saved) el.checked = saved[key + "|" + el.value];
      } else if (key in saved && el.type !== "file" && el.value !== saved[key]) el.value = saved[key]; // the same value: caret and selection stay
    });
  }
  // A disclosure the person opened (or closed) stays so when its part or block is
  // redrawn: each <details> is known by its block, its kind (the editor or its
  // class) and its place among those of the same kind, so one that the redraw no
  // longer has lends its state to no other.
  function detailsKey(d) {
    var blk = d.closest("[data-block-id]");
    return (blk ? blk.getAttribute("data-block-id") : "") + "|" + (d.hasAttribute("data-edit") ? "edit" : d.className);
  }
  function openDetails(root) {
    var seen = {}, open = {};
    $$("details", root).forEach(function (d) {
      var k = detailsKey(d), n = seen[k] = (seen[k] || 0) + 1;
      open[k + "|" + n] = d.open;
    });
    return open;
  }
  function reopenDetails(root, open) {
    var seen = {};
    $$("details", root).forEach(function (d) {
      var k = detailsKey(d), n = seen[k] = (seen[k] || 0) + 1;
      if ((k + "|" + n) in open) d.open = open[k + "|" + n];
    });
  }
  // The element that has the focus keeps it across a redraw of its part or block:
  // it is known by its id, or else by its block, its tag and class and its place
  // among those alike (a disclosure's summary, a block's button), so the next key
  // a keyboard user presses goes where it would have gone.
  function likeKey(e) {
    var blk = e.closest("[data-block-id]");
    return (blk ? blk.getAttribute("data-block-id") : "") + "|" + e.tagName + "|" + e.className;
  }
  function focusKey(root) {
    var a = document.activeElement;
    if (!a || a === document.body || !root.contains(a)) return null;
    if (a.id) return { el: a, id: a.id };
    var k = likeKey(a), n = 0, at = -1;
    $$(a.tagName, root).forEach(function (e) { if (likeKey(e) === k) { if (e === a) at = n; n++; } });
    return { el: a, like: k, tag: a.tagName, n: at };
  }
  // refocus moves the focus only when the redraw took it: an element a redraw
  // left in place keeps it untouched.
  function refocus(root, key) {
    if (!key || (key.el.isConnected && key.el === document.activeElement)) return;
    var el = key.id ? document.getElementById(key.id) : null, n = 0;
    if (!key.id) $$(key.tag, root).some(function (e) { return likeKey(e) === key.like && n++ === key.n && (el = e); });
    if (el && root.contains(el) && el !== document.activeElement) el.focus({ preventScroll: true });
  }
  function fetchHTML(url) {
    return fetch(url, { headers: { Accept: "text/html" } }).then(function (r) {
      if (r.status === 401 || r.status === 404 || r.status === 410) { location.reload(); throw new Error("gone"); }
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    });
  }
  // ---- redraws that leave alone what did not change ----
  // sent holds, for each element the server drew (a part's top-level child, a
  // block, a block's thread), its markup as the server sent it. The live element
  // drifts from it (enhance() wires it, a <details> opens, a thread is placed in
  // a block), so a fresh drawing is compared with what was sent, never with the
  // live DOM; an element whose fresh markup equals what was sent for it stays the
  // very node it was, with its focus, caret, open disclosures and thread.
  // (named holds each one's name, keyOf's, as drawn: its classes change live.)
  var sent = new WeakMap(), named = new WeakMap();
  // remember records el's markup (and that of the threads its blocks hold) as
  // sent; it is called before anything changes el.
  function remember(el) {
    sent.set(el, el.outerHTML);
    named.set(el, nameOf(el));
    $$("[data-block-id] > .cm-thread", el).forEach(function (t) { sent.set(t, t.outerHTML); });
    if (el.hasAttribute("data-block-id")) { var t = threadOf(el); if (t) sent.set(t, t.outerHTML); }
  }
  function unchanged(el, fresh) { return !!el && sent.get(el) === fresh.outerHTML; }
  // keyOf names a top-level child of a part by what stays across drawings: its
  // block id, else its id, else its tag and class as drawn; the nth of a name is
  // name|n.
  function nameOf(el) {
    if (named.has(el)) return named.get(el);
    var b = el.getAttribute("data-block-id");
    return b !== null ? "b:" + b : el.id ? "#" + el.id : el.tagName + "." + el.className;
  }
  function keyOf(el, seen) {
    var k = nameOf(el);
    seen[k] = (seen[k] || 0) + 1;
    return k + "|" + seen[k];
  }
  function blocksIn(el) {
    var list = $$("[data-block-id]", el);
    if (el.hasAttribute("data-block-id")) list.unshift(el);
    return list;
  }
  // carryThreads moves the threads the person opened in old's blocks (placed by
  // placeThread; the server draws none for a block without comments) to the same
  // blocks in el, old's new drawing, when el draws none there; it returns their
  // block ids, so that they are read again (the new drawing may be of a page
  // closed to comments).
  function carryThreads(old, el) {
    var moved = [], fresh = blocksIn(el);
    blocksIn(old).forEach(function (b) {
      var th = threadOf(b), id = b.getAttribute("data-block-id");
      if (!th) return;
      var to = fresh.filter(function (f) { return f.getAttribute("data-block-id") === id; })[0];
      if (!to || threadOf(to)) return;
      to.appendChild(th);
      moved.push(id);
    });
    return moved;
  }
  // redraw brings host's children to html, child by child (keyOf): a child whose
  // markup is what was sent for it stays where it is, untouched; a changed one is
  // replaced (taking its blocks' opened threads along), a gone one removed. It
  // returns the new elements, the block ids whose threads were carried over, and
  // whether anything changed.
  function redraw(host, html) {
    var tmp = document.createElement("div");
    tmp.innerHTML = html;
    var had = {}, seen = {}, kept = new WeakSet(), added = [], carried = [];
    Array.prototype.forEach.call(host.children, function (el) { had[keyOf(el, seen)] = el; });
    seen = {};
    var next = Array.prototype.slice.call(tmp.childNodes).map(function (n) {
      if (n.nodeType !== 1) return n;
      var old = had[keyOf(n, seen)];
      if (unchanged(old, n)) { kept.add(old); return old; }
      remember(n);
      if (old) carried = carried.concat(carryThreads(old, n));
      added.push(n);
      return n;
    });
    var gone = 0;
    Array.prototype.slice.call(host.childNodes).forEach(function (n) {
      if (kept.has(n)) return;
      if (n.nodeType === 1) gone++;
      host.removeChild(n);
    });
    var at = host.firstChild; // only kept children are left, in their order
    next.forEach(function (n) {
      if (n === at) at = at.nextSibling;
      else host.insertBefore(n, at);
    });
    return { added: added, carried: carried, changed: added.length + gone > 0 };
  }
  // rememberPage records the parts as the page drew them: it runs before any
  // script changes them (the blocks' scripts wire them on DOMContentLoaded or
  // from enhance).
  function rememberPage() {
    $$("#blocks, [id^='part-']").forEach(function (host) { Array.prototype.forEach.call(host.children, remember); });
  }

  // A part asked for while its fetch is in flight is fetched once more when that
  // one lands (the fetch may predate what the caller knows changed): every
  // refresh's promise resolves with a part at least as new as the request.
  var pending = {}, again = {};
  function refresh(name) {
    if (pending[name]) {
      if (!again[name]) again[name] = pending[name].then(function () { delete again[name]; return refresh(name); });
      return again[name];
    }
    // The comments part keeps the window of comments the person stepped back to.
    pending[name] = fetchHTML(partBase + "/parts/" + name + (name === "comments" ? location.search : "")).then(function (html) {
      var el = document.getElementById("part-" + name) || (name === "blocks" ? document.getElementById("blocks") : null);
      if (!el) return;
      var saved = saveTyped(), opened = openDetails(el), focused = focusKey(el);
      var got = redraw(el, html);
      if (!got.changed) return; // what is there stays as it is
      reopenDetails(el, opened);
      restoreTyped(saved);
      got.added.forEach(enhance);
      var note = name === "files" && uploadNote && $(".upload-status", el);
      if (note) note.textContent = uploadNote; // a later re-render keeps what the upload said
      refocus(el, focused);
      got.carried.forEach(function (id) { refreshThread(id); });
    }).catch(function () {}).then(function () { delete pending[name]; });
    return pending[name];
  }
  // The decision changes every part that shows the page's state: the bar, the
  // form (answers, not defaults), and comments and files, which say why they close.
  function refreshState() {
    return Promise.all([refresh("head"), refresh("state"), refresh("dbar"), refresh("decide"), refresh("blocks"), refresh("comments"), refresh("files")]).then(function () {
      body.setAttribute("data-status", ($(".page-head .status") || {}).className ? body.getAttribute("data-status") : "");
      followDelivery();
    });
  }
  // While the agent's callback is on its way (or being retried), the state part
  // is read again now and then (bounded: 8 times, at most a minute apart), so the
  // person sees that the agent was notified without reloading.
  var deliveryTries = 0, deliveryTimer = 0;
  function followDelivery() {
    var d = $("[data-delivery]"), state = d && d.getAttribute("data-delivery");
    if (state !== "sending" && state !== "retrying") { deliveryTries = 0; return; }
    if (deliveryTimer || deliveryTries >= 8) return;
    deliveryTimer = setTimeout(function () {
      deliveryTimer = 0;
      deliveryTries++;
      Promise.all([refresh("state"), refresh("dbar")]).then(followDelivery);
    }, Math.min(60000, 500 * Math.pow(2, deliveryTries)));
  }

  // ---- blocks: appended, inserted, updated, reordered ----
  function topBlock(id) {
    return $("#blocks [data-block-id=\"" + (window.CSS && CSS.escape ? CSS.escape(id) : id) + "\"]");
  }
  function labelled() { return !!$("#blocks .blk-grp, #blocks > .tabs"); }
  function blockHTML(id) { return fetchHTML(partBase + "/blocks/" + encodeURIComponent(id)); }
  // place draws block id from html: a block already there whose markup did not
  // change stays untouched (with its thread, focus and open disclosures).
  function place(id, html, before) {
    var tmp = document.createElement("div");
    tmp.innerHTML = html;
    var el = tmp.firstElementChild;
    if (!el) return;
    var old = topBlock(id), host = $("#blocks"), focused = old && focusKey(old), carried = [];
    if (unchanged(old, el)) return;
    remember(el);
    if (old) reopenDetails(tmp, openDetails(old));
    if (old) carried = carryThreads(old, el);
    if (old) old.replaceWith(el);
    else if (before) host.insertBefore(el, before);
    else host.appendChild(el);
    el.classList.add("fresh");
    enhance(el);
    refocus(el, focused);
    carried.forEach(function (bid) { refreshThread(bid); });
  }
  function onBlocks(ev) {
    var d = ev.data || {};
    var hasLabels = function (b) { return b && (b.group || b.tab); };
    if (labelled() || (d.newBlocks || []).some(hasLabels) || hasLabels(d.block)) return refresh("blocks");
    if (ev.type === "blocks.appended") {
      (d.newBlocks || []).reduce(function (p, b) {
        return p.then(function () { return blockHTML(b.id).then(function (h) { place(b.id, h); }); });
      }, Promise.resolve()).catch(function () { refresh("blocks"); });
    } else if (ev.type === "block.updated" && d.block) {
      blockHTML(d.block.id).then(function (h) { place(d.block.id, h); }).catch(function () { refresh("blocks"); });
    } else if (ev.type === "block.inserted" && d.block) {
      var tops = $$("#blocks > [data-block-id]");
      var before = tops[d.position] || null;
      blockHTML(d.block.id).then(function (h) { place(d.block.id, h, before); }).catch(function () { refresh("blocks"); });
    } else if (ev.type === "blocks.reordered" && d.blockIds) {
      var host = $("#blocks");
      d.blockIds.forEach(function (id) { var el = topBlock(id); if (el) host.appendChild(el); });
    } else refresh("blocks");
  }

  // ---- live: the page's own event stream ----
  var live = $("#live");
  function setLive(on, text) {
    if (!live) return;
    live.hidden = false;
    live.textContent = text;
    live.classList.toggle("off", !on);
  }
  // A page kept in the back/forward cache is not open: its stream ends (others see
  // this person leave) and the page reloads when shown again (shared.js).
  var stream = null;
  window.folioStreams.closeOnHide(function () { if (stream) { stream.close(); stream = null; } });
  // A stream the server refused (at its cap of open streams: 429 or 503) or that
  // failed outright is one the browser closes for good and never retries. The page
  // asks again itself, 5 s after the first refusal and twice as long after each
  // next one up to a minute (jittered, so refused pages do not return together),
  // saying "Reconnecting…" meanwhile; once back it redraws its parts and threads, so
  // what changed while it was away shows at once.
  var refused = 0, retryTimer = 0;
  function listen() {
    if (!window.EventSource) return;
    retryTimer = 0;
    var es = new EventSource(base + "/events?presence=1"); // presence.js shows who else is here
    es.onopen = function () {
      setLive(true, "Live");
      if (refused) { refused = 0; refreshState(); refreshThreads(); }
    };
    stream = es;
    es.onerror = function () {
      setLive(false, "Reconnecting…");
      document.dispatchEvent(new CustomEvent("folio:presence", { detail: null })); // unknown until the stream is back
      if (es.readyState !== EventSource.CLOSED || stream !== es || retryTimer) return; // the browser retries, or the page let it go
      stream = null;
      var wait = Math.min(60, 5 * Math.pow(2, refused++)) * (0.8 + 0.4 * Math.random());
      retryTimer = setTimeout(listen, wait * 1000);
    };
    es.onmessage = function (e) {
      var ev;
      try { ev = JSON.parse(e.data); } catch (x) { return; }
      var t = ev.type || "";
      if (t === "connected") return;
      if (t === "presence") { document.dispatchEvent(new CustomEvent("folio:presence", { detail: ev.data || {} })); return; }
      if (t === "reset") { es.close(); location.reload(); return; }
      // changed.js marks and announces content that changes while the person reads.
      if (/^blocks?\./.test(t) || t === "page.updated") document.dispatchEvent(new CustomEvent("folio:change", { detail: ev }));
      if (/^blocks?\./.test(t)) onBlocks(ev);
      else if (/^comment\./.test(t)) { refresh("comments"); refreshThreads((ev.data || {}).block_id); }
      else if (/^file\./.test(t)) refresh("files");
      else if (t === "page.revoked") { es.close(); location.reload(); }
      else if (/^(page|action|approval)\./.test(t)) refreshState();
    };
  }

  // ---- errors next to the fields they are about ----
  function clearErrors(scope) {
    $$(".field-error", scope).forEach(function (p) { p.hidden = true; p.textContent = ""; });
    $$("[aria-invalid]", scope).forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }
  function fieldError(input, slot, message) {
    if (!slot) return null;
    slot.textContent = message;
    slot.hidden = false;
    if (input) input.setAttribute("aria-invalid", "true");
    return input;
  }
  function showErrors(err, status) {
    var details = (err && err.details) || {}, first = null;
    var list = details.errors || (details.field ? [{ field: details.field, field_id: details.field_id, message: err.message }] : []);
    list.forEach(function (e) {
      var input = null, slot = null;
      if (e.field_id) {
        var wrap = $("[data-field=\"" + (window.CSS && CSS.escape ? CSS.escape(e.field_id) : e.field_id) + "\"]");
        if (wrap) { input = $("input, textarea, select", wrap); slot = $(".field-error", wrap); }
      } else if (e.field === "actor.identity") {
        input = $("#actor_identity"); slot = $("#actor_identity-err");
      } else if (e.field === "comment") {
        input = $("#decide-comment"); slot = $("#decide-comment-err");
      }
      var got = fieldError(input, slot, e.message);
      first = first || got;
    });
    if (first) first.focus();
    status.textContent = list.length > 1 ? "Please correct the " + list.length + " fields marked in red." : (err ? err.message : "That did not work.");
    status.classList.add("err");
  }

  // ---- the decision ----
  // confirmAction asks before an action marked data-confirm-action (decide.js names
  // the action and the page).
  function confirmAction(button, label) {
    return window.folioConfirmDecision(label, button.hasAttribute("data-danger"));
  }
  function formValues(form) {
    var values = {};
    $$("[name^='form_data.']").forEach(function (el) {
      if (el.disabled || (el.form && el.form !== form)) return;
      var name = el.name.slice("form_data.".length);
      if (el.type === "file") {
        if (el.dataset.fileId) (values[name] = values[name] || []).push(el.dataset.fileId);
        return;
      }
      if ((el.type === "checkbox" || el.type === "radio") && !el.checked) return;
      (values[name] = values[name] || []).push(el.value);
    });
    return values;
  }
  // collectEdits: the corrections of editable blocks the person made (a block
  // whose fields are all as drawn is left out), as execute-action takes them.
  function collectEdits(form) {
    var out = [];
    $$("[data-edit]").forEach(function (box) {
      var fields = $$("input, textarea", box).filter(function (el) { return !el.disabled && (!el.form || el.form === form); });
      if (!fields.some(function (el) { return el.value !== el.defaultValue; })) return;
      var e = { block_id: box.getAttribute("data-edit") }, kind = box.getAttribute("data-edit-kind");
      if (kind === "content") e.content = fields[0].value;
      else if (kind === "values") e.values = fields.map(function (el) { return el.value; });
      else {
        e.rows = [];
        fields.forEach(function (el) {
          var r = +el.getAttribute("data-r");
          while (e.rows.length <= r) e.rows.push({});
          if (el.value !== el.defaultValue) e.rows[r][el.getAttribute("data-col")] = el.value;
        });
      }
      out.push(e);
    });
    return out;
  }
  function decide(e) {
    var form = e.target;
    if (!form || form.id !== "decide") return;
    e.preventDefault();
    if (e.submitter && e.submitter.classList.contains("enter-guard")) return; // Enter in a field: nothing to send
    var button = e.submitter || document.activeElement;
    var action = button && button.name === "action" ? button.value : "";
    var label = button ? button.textContent.trim() : "Submit";
    var status = $(".form-status", form);
    var go = button && button.hasAttribute("data-confirm-action") ? confirmAction(button, label) : Promise.resolve(true);
    go.then(function (ok) {
      // The page changed after the version this decision is about (while the
      // person chose, or confirmed): say so and send nothing (changed.js knows).
      var stale = window.folioStale && form.elements.page_version ? window.folioStale(+form.elements.page_version.value) : null;
      if (stale) { pageChanged(form, status, stale); return; }
      if (!ok) { if (button && button.focus) button.focus(); return; }
      clearErrors(document);
      status.classList.remove("err");
      status.textContent = "Sending…";
      var payload = { form_values: formValues(form) };
      var edits = collectEdits(form);
      if (edits.length) payload.edits = edits;
      var seen = form.elements.page_version; // the content version this decision is about
      if (seen && seen.value) payload.page_version = +seen.value;
      var whoInput = $("#actor_identity"); // absent when signed in: the session says who
      if (whoInput) {
        var who = whoInput.value || "";
        if (who.trim()) store("folio.identity", who.trim());
        payload.actor = { identity: who };
      }
      var comment = ($("#decide-comment") || {}).value || "";
      if (comment.trim()) payload.comment = comment;
      // The buttons this disables come back once the page is redrawn: those the
      // redraw keeps (a step that leaves the page open draws the same form) are
      // enabled again, the others are gone with what the decision closed.
      var held = $$("button[name=action]").filter(function (b) { return !b.disabled; });
      held.forEach(function (b) { b.disabled = true; });
      fetch(base + "/actions/" + encodeURIComponent(action || "submit"), {
        method: "POST", headers: headers({ "Content-Type": "application/json", Accept: "application/json" }), body: JSON.stringify(payload)
      }).then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; });
      }).then(function (res) {
        // A recorded decision leaves the buttons disabled until the redraw: between
        // the answer and the redraw they would only earn a 409.
        if (res.status !== 200) held.forEach(function (b) { b.disabled = false; });
        if (res.status === 200) {
          status.textContent = "Recorded: " + label + ".";
          refreshState().then(function () {
            held.forEach(function (b) { if (b.isConnected) b.disabled = false; });
            // The outcome takes the focus only from where the decision was made
            // (its button, the form, the bar, or nothing left): a person who
            // moved on while the page was redrawn keeps where they went.
            var a = document.activeElement;
            if (a && a !== document.body && a !== button && !form.contains(a) && !a.closest(".dbar")) return;
            var h = $("#outcome-h") || $("#chain-h");
            if (h) { h.setAttribute("tabindex", "-1"); h.focus(); }
          });
          return;
        }
        var why = (res.body.error || {}).details || {};
        if (res.status === 409 && why.reason === "page_changed") {
          pageChanged(form, status, why);
          return;
        }
        if (res.status === 409) {
          status.textContent = "This page changed before your decision arrived: " + ((res.body.error || {}).message || "") + ".";
          status.classList.add("err");
          refreshState();
          return;
        }
        showErrors(res.body.error, status);
      }).catch(function () {
        held.forEach(function (b) { b.disabled = false; });
        status.textContent = "The decision could not be sent. Check your connection and try again.";
        status.classList.add("err");
      });
    });
  }

  // A decision refused because the page changed since it was drawn: say so, name
  // the blocks that changed (linked, and marked once redrawn), and take the next
  // decision on the new version.
  function pageChanged(form, status, d) {
    var changed = (d.changed_blocks || []), removed = (d.removed_blocks || []), fields = (d.changed_fields || []).filter(function (f) { return f !== "order"; });
    status.textContent = "";
    status.classList.add("err");
    status.classList.add("page-changed");
    var lead = document.createElement("strong");
    lead.textContent = "The page changed while you were reviewing it (version " + d.page_version + " → " + d.current_version + "). Nothing was recorded.";
    status.appendChild(lead);
    var what = document.createElement("span");
    what.className = "changed-list";
    if (changed.length) {
      what.appendChild(document.createTextNode(" Changed: "));
      changed.forEach(function (id, i) {
        if (i) what.appendChild(document.createTextNode(", "));
        var el = topBlock(id), head = el && document.getElementById(el.getAttribute("aria-labelledby") || ""), a = document.createElement("a");
        a.href = "#" + (el && el.id ? el.id : "blocks");
        a.textContent = head ? head.textContent.trim() : id; // the block's heading, else its id
        a.setAttribute("data-changed", id);
        what.appendChild(a);
      });
      what.appendChild(document.createTextNode("."));
    }
    if (removed.length) what.appendChild(document.createTextNode(" Removed: " + removed.length + " block" + (removed.length > 1 ? "s" : "") + "."));
    if (fields.length) what.appendChild(document.createTextNode(" Also changed: " + fields.join(", ") + "."));
    what.appendChild(document.createTextNode(" Review the changes, then decide again: your next decision is about version " + d.current_version + "."));
    status.appendChild(what);
    if (form.elements.page_version) form.elements.page_version.value = d.current_version;
    if (window.folioSayChanged) window.folioSayChanged(d); // the decision bar says it too
    Promise.all([refresh("head"), refresh("blocks")]).then(function () {
      changed.forEach(function (id) {
        var el = topBlock(id);
        if (!el) return;
        el.classList.add("blk-changed");
        var link = $("[data-changed=\"" + (window.CSS && CSS.escape ? CSS.escape(id) : id) + "\"]", status);
        if (link && el.id) link.href = "#" + el.id;
      });
    });
  }

  // ---- comments ----
  var tokens = {};
  try { tokens = JSON.parse(store("folio.comment-tokens") || "{}") || {}; } catch (e) { tokens = {}; }
  function saveToken(id, token) { tokens[id] = token; store("folio.comment-tokens", JSON.stringify(tokens)); }
  var context = { parent: "", block: "" };
  function setContext(text, parent, block) {
    context = { parent: parent || "", block: block || "" };
    var c = $(".composer-context");
    if (!c) return;
    c.hidden = !text;
    $("span", c).textContent = text || "";
    var t = $("#comment-text");
    if (text && t) t.focus();
  }
  function comments(scope) {
    var composer = $("#composer");
    if (composer) composer.hidden = false;
    $$(".comment", scope).forEach(function (li) {
      var id = li.getAttribute("data-comment"), tools = $(".comment-tools", li);
      if (!tools) return;
      var th = li.closest(".cm-thread"), form = th ? $(".thread-form", th) : composer; // a thread's replies go to its own form
      tools.hidden = !form && !tokens[id];
      $("[data-reply]", tools).hidden = !form;
      $("[data-edit]", tools).hidden = !tokens[id] || !form;
      $("[data-delete]", tools).hidden = !tokens[id];
    });
    var name = $("#comment-name");
    if (composer && name && !name.value) name.value = store("folio.identity") || "";
  }
  function commentRequest(method, url, payload) {
    return fetch(url, { method: method, headers: headers({ "Content-Type": "application/json", Accept: "application/json" }), body: JSON.stringify(payload) })
      .then(function (r) { return r.text().then(function (t) { var j = {}; try { j = JSON.parse(t); } catch (e) { /* 204 */ } return { status: r.status, body: j }; }); });
  }
  function onComment(e) {
    var form = e.target;
    if (form && form.hasAttribute("data-thread-form")) { onThreadComment(e); return; }
    if (!form || form.id !== "composer") return;
    e.preventDefault();
    var status = $(".form-status", form), text = $("#comment-text");
    clearErrors(form);
    status.classList.remove("err");
    var payload = { content: text.value };
    var name = $("#comment-name"); // absent when signed in
    if (name) {
      payload.author_name = name.value;
      if (name.value.trim()) store("folio.identity", name.value.trim());
    }
    if (context.parent) payload.parent_id = context.parent;
    if (context.block) payload.block_id = context.block;
    status.textContent = "Posting…";
    commentRequest("POST", base + "/comments", payload).then(function (res) {
      if (res.status !== 201) {
        var err = res.body.error || {};
        if ((err.details || {}).field === "content") fieldError(text, $("#comment-text-err"), err.message);
        status.textContent = err.message || "The comment was not posted.";
        status.classList.add("err");
        return;
      }
      if (res.body.editToken) saveToken(res.body.id, res.body.editToken);
      text.value = "";
      setContext("");
      status.textContent = "Posted.";
      refresh("comments").then(function () {
        var li = document.getElementById("c-" + res.body.id);
        if (li) li.classList.add("flash");
      });
    }).catch(function () { status.textContent = "The comment could not be sent."; status.classList.add("err"); });
  }
  function onCommentTool(e) {
    var t = e.target.closest("button");
    if (!t) return;
    var th = t.closest(".cm-thread");
    if (th && t.hasAttribute("data-cancel")) { threadContext(th, "", ""); return; }
    var li = t.closest(".comment");
    if (!li) return;
    var id = li.getAttribute("data-comment");
    if (t.hasAttribute("data-reply") && th) {
      threadContext(th, "Replying to " + $(".who strong", li).textContent + ".", id);
    } else if (t.hasAttribute("data-reply")) {
      setContext("Replying to " + $(".who strong", li).textContent + ".", id, "");
    } else if (t.hasAttribute("data-delete")) {
      if (!window.confirm("Delete this comment?")) return;
      commentRequest("DELETE", base + "/comments/" + encodeURIComponent(id), { edit_token: tokens[id] }).then(function () { refresh("comments"); refreshThreads(); });
    } else if (t.hasAttribute("data-edit")) {
      var p = $(".text", li), area = document.createElement("textarea"), save = document.createElement("button"), cancel = document.createElement("button");
      area.value = p.textContent; area.rows = 3; area.className = "edit-area"; area.setAttribute("aria-label", "Edit your comment");
      save.type = "button"; save.className = "bt bt-primary"; save.textContent = "Save";
      cancel.type = "button"; cancel.className = "bt bt-secondary"; cancel.textContent = "Cancel";
      var row = document.createElement("div"); row.className = "decide-actions"; row.appendChild(save); row.appendChild(cancel);
      p.replaceWith(area); area.after(row); area.focus();
      // The edit box goes away here: a redraw leaves a comment whose markup did
      // not change as it is, edit box included.
      var done = function () { area.replaceWith(p); row.remove(); };
      cancel.addEventListener("click", function () { done(); refresh("comments"); refreshThreads(); });
      save.addEventListener("click", function () {
        commentRequest("PATCH", base + "/comments/" + encodeURIComponent(id), { content: area.value, edit_token: tokens[id] }).then(function () { done(); refresh("comments"); refreshThreads(); });
      });
    }
  }


  // ---- threads in place: a block's comments under it ----
  // Each top-level block with comments holds its thread (a <details> the server
  // draws, GET /p/:id/threads/:blockId). The affordance (a.blk-comment, a link
  // that works without script) opens it in place; a click on a line number of a
  // code or diff block picks that line (Shift+click: a range) for the comment.
  function threadOf(blk) {
    for (var i = 0; i < blk.children.length; i++) if (blk.children[i].classList.contains("cm-thread")) return blk.children[i];
    return null;
  }
  // placeThread puts a thread's fresh markup in its block (or takes it away when
  // the block has none now), keeping what the person typed and whether it is open.
  // A thread whose markup did not change stays the very node it was.
  function placeThread(blk, html) {
    var cur = threadOf(blk), tmp = document.createElement("div");
    tmp.innerHTML = html;
    var next = tmp.firstElementChild, saved = saveTyped(), focused = cur && focusKey(cur);
    if (next && unchanged(cur, next)) return cur;
    if (next) remember(next);
    if (next && cur) next.open = cur.open || next.open;
    if (cur && next) cur.replaceWith(next);
    else if (cur) cur.remove();
    else if (next) blk.appendChild(next);
    restoreTyped(saved);
    if (next) { comments(next); refocus(next, focused); }
    markBlock(blk);
    return next;
  }
  function fetchThread(id, open) {
    return fetchHTML(partBase + "/threads/" + encodeURIComponent(id) + (open ? "?open=1" : ""));
  }
  // refreshThread redraws the thread of block bid in the block as it is when the
  // thread arrives (a redraw may have drawn the block anew meanwhile).
  function refreshThread(bid) {
    var blk = topBlock(bid);
    if (!blk) return null;
    var cur = threadOf(blk);
    return fetchThread(bid, cur && cur.open).then(function (html) { var now = topBlock(bid); if (now) placeThread(now, html); }).catch(function () {});
  }
  // refreshThreads redraws the thread of block id and of every block that shows one.
  function refreshThreads(id) {
    var ids = {};
    if (id) ids[id] = true;
    $$("#blocks .cm-thread[data-thread]").forEach(function (t) { ids[t.getAttribute("data-thread")] = true; });
    return Promise.all(Object.keys(ids).map(refreshThread));
  }
  // commentOn opens block blk's thread and its form, with a picked line range
  // (pick: {side, start, end}) or none; the focus goes to the first field to fill.
  function commentOn(blk, pick) {
    var id = blk.getAttribute("data-block-id"), th = threadOf(blk);
    // The thread goes into the block as it is when the thread arrives: a redraw
    // may have drawn the block anew since the click.
    var ready = th && $(".thread-form", th) ? Promise.resolve(th) : fetchThread(id, true).then(function (html) { return placeThread(topBlock(id) || blk, html); });
    return ready.then(function (t) {
      if (!t) return;
      t.open = true;
      var form = $(".thread-form", t);
      if (!form) { $("summary", t).focus(); return; }
      var from = $("[name=line_start]", form), to = $("[name=line_end]", form), side = $("[name=line_side]", form);
      if (pick && from) {
        from.value = pick.start; to.value = pick.end;
        if (side) side.value = pick.side === "old" ? "old" : "new";
      }
      var first = !pick && from && !from.value ? from : $("textarea", form);
      first.focus();
      if (first.scrollIntoView) first.scrollIntoView({ block: "nearest" });
      showPick(blk, form);
    });
  }
  function threadContext(th, text, parent) {
    var form = $(".thread-form", th);
    if (!form) return;
    var c = $(".composer-context", form);
    c.hidden = !text;
    $("span", c).textContent = text || "";
    $("[name=parent_id]", form).value = parent || "";
    $("textarea", form).focus();
  }
  // The line a click on a line number names: {side, n}; null for anything else.
  function lineAt(el) {
    var ln = el.closest(".code-ln");
    if (ln) return { side: "code", n: +ln.getAttribute("data-n") };
    var td = el.closest("td.diff-n");
    if (!td || !td.textContent.trim()) return null;
    var nums = $$("td.diff-n", td.parentNode);
    return { side: nums.indexOf(td) === 0 ? "old" : "new", n: +td.textContent.trim() };
  }
  var picked = null; // {block, side, start, end}: the range the last clicks picked
  function onThreadClick(e) {
    var a = e.target.closest("a.blk-comment");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      var blk = a.closest("[data-block-id]");
      if (!blk) return;
      e.preventDefault();
      commentOn(blk, null);
      return;
    }
    var line = e.target.closest("#blocks") && lineAt(e.target);
    if (!line || !line.n) return;
    var b = e.target.closest("#blocks > [data-block-id], #blocks [data-block-id]");
    if (!b || !$(".blk-comment", b)) return;
    if (e.shiftKey && picked && picked.block === b && picked.side === line.side) {
      picked.start = Math.min(picked.anchor, line.n); picked.end = Math.max(picked.anchor, line.n);
    } else picked = { block: b, side: line.side, start: line.n, end: line.n, anchor: line.n };
    commentOn(b, picked);
  }
  // The elements showing each line of a block: key side:n (side code, old or new).
  function lineIndex(blk) {
    var idx = {};
    function add(k, el) { (idx[k] = idx[k] || []).push(el); }
    $$("code > .code-line", blk).forEach(function (el, i) { add("code:" + (i + 1), el); });
    $$(".diff-t-uni tbody tr", blk).forEach(function (tr) {
      var n = $$("td.diff-n", tr);
      if (n[0] && n[0].textContent.trim()) add("old:" + n[0].textContent.trim(), tr);
      if (n[1] && n[1].textContent.trim()) add("new:" + n[1].textContent.trim(), tr);
    });
    $$(".diff-t-split tbody tr", blk).forEach(function (tr) {
      var n = $$("td.diff-n", tr);
      if (n[0] && n[0].textContent.trim()) add("old:" + n[0].textContent.trim(), n[0]);
      if (n[1] && n[1].textContent.trim()) add("new:" + n[1].textContent.trim(), n[1]);
    });
    return idx;
  }
  function ranges(list, fn) {
    list.forEach(function (r) {
      for (var n = r.start; n <= r.end && n - r.start < 10000; n++) fn(r.side + ":" + n);
    });
  }
  // markBlock marks the lines of blk that its thread's comments are about.
  function markBlock(blk) {
    $$(".line-commented", blk).forEach(function (el) { el.classList.remove("line-commented"); });
    var th = threadOf(blk), marks = th && th.getAttribute("data-lines");
    if (!marks) return;
    var idx = lineIndex(blk), list = [];
    marks.split(" ").forEach(function (m) {
      var p = /^(code|old|new):(\d+)-(\d+)$/.exec(m);
      if (p) list.push({ side: p[1], start: +p[2], end: +p[3] });
    });
    ranges(list, function (k) { (idx[k] || []).forEach(function (el) { el.classList.add("line-commented"); }); });
  }
  function markLines(scope) {
    var blks = scope.matches && scope.matches("[data-block-id]") ? [scope] : $$("#blocks [data-block-id]", scope === document ? document : scope);
    if (scope !== document && !blks.length && scope.closest) { var up = scope.closest("[data-block-id]"); if (up) blks = [up]; }
    blks.forEach(markBlock);
  }
  // showPick outlines the range typed or picked in blk's form.
  function showPick(blk, form) {
    $$(".line-picked", blk).forEach(function (el) { el.classList.remove("line-picked"); });
    var from = $("[name=line_start]", form), to = $("[name=line_end]", form), side = $("[name=line_side]", form);
    if (!from || !+from.value) return;
    var s = side ? side.value : "code", a = +from.value, b = +to.value || a, idx = lineIndex(blk);
    ranges([{ side: s, start: a, end: Math.max(a, b) }], function (k) { (idx[k] || []).forEach(function (el) { el.classList.add("line-picked"); }); });
  }
  document.addEventListener("input", function (e) {
    var form = e.target.closest && e.target.closest(".thread-form"), blk = form && form.closest("[data-block-id]");
    if (blk && /^line_/.test(e.target.name)) showPick(blk, form);
  });
  function onThreadComment(e) {
    var form = e.target, blk = form.closest("[data-block-id]");
    e.preventDefault();
    if (e.submitter && e.submitter.classList.contains("enter-guard")) return; // Enter in a field: nothing to send
    var status = $(".form-status", form), text = $("textarea", form), id = form.elements.block_id.value;
    clearErrors(form);
    status.classList.remove("err");
    var payload = { content: text.value, block_id: id };
    var name = $("[name=author_name]", form); // absent when signed in
    if (name) {
      payload.author_name = name.value;
      if (name.value.trim()) store("folio.identity", name.value.trim());
    }
    if (form.elements.parent_id.value) payload.parent_id = form.elements.parent_id.value;
    var from = form.elements.line_start, to = form.elements.line_end, side = form.elements.line_side;
    var lineSlot = form.querySelector(".thread-lines .field-error");
    if (from && from.value.trim()) {
      var a = Number(from.value.trim()), b = to.value.trim() ? Number(to.value.trim()) : a;
      if (!Number.isInteger(a) || !Number.isInteger(b)) {
        fieldError(Number.isInteger(a) ? to : from, lineSlot, "Line numbers are whole numbers, from 1.").focus();
        return;
      }
      payload.line_start = a; payload.line_end = b;
      if (side) payload.line_side = side.value;
    }
    status.textContent = "Posting…";
    commentRequest("POST", base + "/comments", payload).then(function (res) {
      if (res.status !== 201) {
        var err = res.body.error || {}, f = (err.details || {}).field;
        var slot = /^line_/.test(f) ? lineSlot : $(".field-error", text.parentNode);
        var input = f === "line_end" ? to : f === "line_start" ? from : f === "line_side" ? side : text;
        var got = fieldError(input || text, slot, err.message || "The comment was not posted.");
        status.textContent = err.message || "The comment was not posted.";
        status.classList.add("err");
        if (got) got.focus();
        return;
      }
      if (res.body.editToken) saveToken(res.body.id, res.body.editToken);
      text.value = "";
      if (from) { from.value = ""; to.value = ""; if (side) side.value = "new"; }
      form.elements.parent_id.value = "";
      picked = null;
      refresh("comments");
      fetchThread(id, true).then(function (html) {
        var t = placeThread(topBlock(id) || blk, html);
        var li = document.getElementById("tc-" + res.body.id);
        if (li) li.classList.add("flash");
        var st = t && $(".form-status", t);
        if (st) st.textContent = "Posted.";
      });
    }).catch(function () { status.textContent = "The comment could not be sent."; status.classList.add("err"); });
  }

  // ---- files: presign, PUT with progress, complete ----
  function send(file, status, progress) {
    var who = store("folio.identity") || "";
    return fetch(base + "/files/presign", {
      method: "POST", headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ filename: file.name, mime_type: file.type || "application/octet-stream", size_bytes: file.size, uploaded_by: who })
    }).then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error((j.error || {}).message || "the upload was refused"); return j; }); })
      .then(function (p) {
        return new Promise(function (resolve, reject) {
          var x = new XMLHttpRequest();
          x.open("PUT", p.uploadUrl);
          if (progress) {
            progress.hidden = false; progress.value = 0;
            x.upload.onprogress = function (ev) { if (ev.lengthComputable) { progress.value = Math.round(100 * ev.loaded / ev.total); progress.textContent = progress.value + "%"; } };
          }
          x.onload = function () { x.status < 300 ? resolve(p) : reject(new Error("the upload failed (" + x.status + ")")); };
          x.onerror = function () { reject(new Error("the upload was interrupted")); };
          status.textContent = "Uploading " + file.name + "…";
          x.send(file);
        });
      })
      .then(function (p) {
        return fetch(base + "/files/complete", { method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify({ storage_key: p.storageKey }) })
          .then(function (r) { return r.json().then(function (j) { if (r.status !== 201) throw new Error((j.error || {}).message || "the upload was not recorded"); return j; }); });
      });
  }
  // uploadNote is what the last upload said; the files part is re-rendered by live
  // events too, and keeps it.
  var uploadNote = "";
  function uploads(scope) {
    $$("[data-upload]", scope).forEach(function (box) {
      if (box.tagName === "INPUT") return;
      box.hidden = false;
      var input = $("input[type=file]", box);
      if (!input || input.dataset.wired) return;
      input.dataset.wired = "1";
      input.addEventListener("change", function () {
        var file = input.files[0], status = $(".upload-status", box), progress = $("progress", box);
        if (!file) return;
        send(file, status, progress).then(function (f) {
          input.value = "";
          uploadNote = "Attached " + f.filename + ".";
          return refresh("files").then(function () {
            var s = $(".upload-status");
            if (s) s.textContent = uploadNote;
          });
        }).catch(function (err) { status.textContent = "Not attached: " + err.message + "."; progress.hidden = true; });
      });
    });
  }
  function formUploads(scope) {
    $$("input[type=file][data-upload]", scope).forEach(function (input) {
      if (input.dataset.wired) return;
      input.dataset.wired = "1";
      input.addEventListener("change", function () {
        var file = input.files[0], wrap = input.closest("[data-field]"), slot = wrap && $(".field-error", wrap);
        delete input.dataset.fileId;
        if (!file) return;
        var note = document.createElement("p");
        note.className = "muted"; note.setAttribute("role", "status");
        input.after(note);
        send(file, note, null).then(function (f) { input.dataset.fileId = f.id; note.textContent = "Uploaded " + f.filename + "."; })
          .catch(function (err) { note.remove(); fieldError(input, slot, "Not uploaded: " + err.message + "."); });
      });
    });
  }

  // ---- start ----
  function start() {
    fetch("/internal/pages/" + encodeURIComponent(pageId) + "/view", { method: "POST", headers: headers() }).catch(function () {});
    var who = $("#actor_identity");
    if (who && !who.value) who.value = store("folio.identity") || "";
    document.addEventListener("submit", function (e) { if (e.target.id === "decide") decide(e); else onComment(e); });
    document.addEventListener("click", onCommentTool);
    document.addEventListener("click", onThreadClick);
    window.folioCommentOn = commentOn;
    rememberPage();
    enhance(document);
    listen();
    followDelivery();
    var problem = $("#problem");
    if (problem) problem.focus();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();

// Copy buttons (the API key shown once after a first sign-in): the text of the
// element the button names goes to the clipboard, and the page says so.
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("[data-copy]") : null;
    if (!b) return;
    var src = document.getElementById(b.getAttribute("data-copy"));
    var status = document.querySelector(".copy-status");
    if (!src) return;
    var done = function (ok) { if (status) status.textContent = ok ? "Copied." : "Select the key and copy it by hand."; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(src.textContent).then(function () { done(true); }, function () { done(false); });
    } else {
      done(false);
    }
  });
})();
