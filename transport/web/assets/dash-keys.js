// The keys screen: revoking asks first, in a dialog, then sends the same form with
// confirm=yes. Without JavaScript the form posts as it is and the server asks on a
// page of its own.
(function () {
  "use strict";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function ask(name, lastLive) {
    return new Promise(function (resolve) {
      var dlg = el("dialog", "confirm");
      dlg.setAttribute("aria-labelledby", "revoke-h");
      var h = el("h2", "", "Revoke \u201c" + name + "\u201d?"); h.id = "revoke-h";
      dlg.appendChild(h);
      dlg.appendChild(el("p", "", "Every request made with this key is refused from then on. This cannot be undone."));
      if (lastLive) {
        var warn = el("p", "notice notice-warn");
        warn.appendChild(el("strong", "", "This is the workspace's only live key."));
        warn.appendChild(document.createTextNode(" Agents using it cannot publish live pages until you make another."));
        dlg.appendChild(warn);
      }
      var row = el("div", "decide-actions");
      var yes = el("button", "bt bt-danger", "Yes, revoke it"); yes.type = "button";
      var no = el("button", "bt bt-secondary", "Keep it"); no.type = "button";
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
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.classList || !form.classList.contains("key-revoke")) return;
    var confirmed = form.querySelector("input[name=confirm]");
    if (!confirmed || confirmed.value === "yes" || !window.HTMLDialogElement) return;
    e.preventDefault();
    var opener = e.submitter || form.querySelector("button[type=submit]");
    ask(form.getAttribute("data-name") || "", form.getAttribute("data-last-live") === "true").then(function (ok) {
      if (!ok) { if (opener) opener.focus(); return; }
      confirmed.value = "yes";
      form.submit();
    });
  });
})();
