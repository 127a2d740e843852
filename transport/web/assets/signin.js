// Secrets that arrive in an address's fragment (after #): a sign-in link's token on
// /login/link, a claim token on /claim. A browser never sends the fragment to a
// server, so they never sit in an access log; this script hands them to the page's
// form, which posts them. Without it the person pastes the link into the form.
(function () {
  "use strict";
  function start() {
    var secret = location.hash.slice(1);
    var link = document.getElementById("link-form");
    if (link) {
      if (!/^ml_[0-9A-Za-z]{43}$/.test(secret)) return;
      document.getElementById("link-token").value = secret;
      document.getElementById("link-field").hidden = true;
      document.getElementById("link-wait").hidden = false;
      history.replaceState(null, "", location.pathname);
      link.submit();
      return;
    }
    if (!/^ct_[0-9A-Za-z]{43}$/.test(secret)) return;
    var token = document.getElementById("claim-token");
    if (token) {
      token.value = secret;
      document.getElementById("claim-token-field").hidden = true;
    }
    // Signing in first leads back here with the same fragment.
    Array.prototype.forEach.call(document.querySelectorAll("input[name=next]"), function (el) {
      if (el.value.indexOf("#") < 0) el.value += "#" + secret;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
