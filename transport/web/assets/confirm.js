// The one confirmation dialog of every page: window.folioConfirm(o) asks in an
// in-page <dialog> (Cancel focused, Escape cancels) and resolves true or false. A
// form marked data-confirm (title), with data-what (the consequence), data-yes,
// data-no, data-warn (a warning line) and data-danger, asks before it is sent and
// then posts with confirm=yes; without JavaScript the server asks on a page of its
// own. Text goes in with textContent only (titles are an agent's text).
(function () {
  "use strict";
  var seq = 0;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  window.folioConfirm = function (o) {
    if (!window.HTMLDialogElement) return Promise.resolve(window.confirm(o.title));
    return new Promise(function (resolve) {
      var id = "confirm-" + (++seq);
      var dlg = el("dialog", "confirm");
      dlg.setAttribute("aria-labelledby", id + "-h");
      if (o.kind) dlg.setAttribute("data-kind", o.kind); // "decision": closed when the page changes (changed.js)
      var h = el("h2", "", o.title); h.id = id + "-h";
      dlg.appendChild(h);
      if (o.text) {
        var p = el("p", "", o.text); p.id = id + "-p";
        dlg.setAttribute("aria-describedby", p.id);
        dlg.appendChild(p);
      }
      if (o.warn) dlg.appendChild(el("p", "notice notice-warn", o.warn));
      var row = el("div", "decide-actions");
      var yes = el("button", "bt " + (o.danger ? "bt-danger" : "bt-primary"), o.yes || "Yes"); yes.type = "button";
      var no = el("button", "bt bt-secondary", o.no || "Cancel"); no.type = "button";
      row.appendChild(yes); row.appendChild(no);
      dlg.appendChild(row);
      document.body.appendChild(dlg);
      var done = function (v) { dlg.close(); dlg.remove(); resolve(v); };
      yes.addEventListener("click", function () { done(true); });
      no.addEventListener("click", function () { done(false); });
      dlg.addEventListener("cancel", function (e) { e.preventDefault(); done(false); });
      dlg.showModal();
      no.focus();
    });
  };
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.hasAttribute || !form.hasAttribute("data-confirm")) return;
    var confirmed = form.querySelector("input[name=confirm]");
    if (confirmed && confirmed.value === "yes") return;
    e.preventDefault();
    var opener = e.submitter || form.querySelector("button[type=submit]");
    window.folioConfirm({ title: form.getAttribute("data-confirm"), text: form.getAttribute("data-what"), warn: form.getAttribute("data-warn"),
      yes: form.getAttribute("data-yes"), no: form.getAttribute("data-no"), danger: form.hasAttribute("data-danger") }).then(function (ok) {
      if (!ok) { if (opener && opener.focus) opener.focus(); return; }
      if (!confirmed) {
        confirmed = document.createElement("input");
        confirmed.type = "hidden";
        confirmed.name = "confirm";
        form.appendChild(confirmed);
      }
      confirmed.value = "yes";
      form.submit();
    });
  });
})();
