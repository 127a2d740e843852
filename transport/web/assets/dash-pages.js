// The pages screen's changes (revoke, renew): asked in a dialog of the page before
// the same form is posted with confirm=yes. Without this script the server asks on
// a page of its own. Text goes in with textContent only (a page title is an
// agent's text).
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("dash")) return;

  function button(label, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "bt " + cls;
    b.textContent = label;
    return b;
  }

  function ask(form) {
    return new Promise(function (resolve) {
      var dlg = document.createElement("dialog");
      dlg.className = "confirm dp-dialog";
      dlg.setAttribute("aria-labelledby", "dp-dialog-h");
      dlg.setAttribute("aria-describedby", "dp-dialog-p");
      var h = document.createElement("h2");
      h.id = "dp-dialog-h";
      h.textContent = form.getAttribute("data-confirm") || "Are you sure?";
      var p = document.createElement("p");
      p.id = "dp-dialog-p";
      p.textContent = form.getAttribute("data-what") || "";
      var row = document.createElement("div");
      row.className = "decide-actions";
      var yes = button(form.getAttribute("data-yes") || "Yes", form.hasAttribute("data-danger") ? "bt-danger" : "bt-primary");
      var no = button("Cancel", "bt-secondary");
      row.appendChild(yes);
      row.appendChild(no);
      dlg.appendChild(h);
      dlg.appendChild(p);
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
    if (!form.classList || !form.classList.contains("dp-change") || !window.HTMLDialogElement) return;
    e.preventDefault();
    var from = e.submitter || document.activeElement;
    ask(form).then(function (ok) {
      if (!ok) {
        if (from && from.focus) from.focus();
        return;
      }
      var confirm = document.createElement("input");
      confirm.type = "hidden";
      confirm.name = "confirm";
      confirm.value = "yes";
      form.appendChild(confirm);
      form.submit(); // a plain post: the server answers 303 back to the page
    });
  });
})();
