package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// keyRow is the JavaScript that finds the keys screen's row of the key named name.
func keyRow(name string) string {
	return `[...document.querySelectorAll(".key")].find(function(li){return li.querySelector(".key-name").textContent === ` + jsonString(name) + `})`
}

// TestDashKeysANewKeyIsShownOnceWorksAndOnceRevokedIsRefused: the owner makes a key
// on the keys screen and sees it in full, once, with a Copy button; the list gains
// its row by prefix; reloading does not show it again. The key works on the API.
// Revoking asks first (Keep it changes nothing), then the API refuses the key. A
// name left blank is refused next to its field.
func TestDashKeysANewKeyIsShownOnceWorksAndOnceRevokedIsRefused(t *testing.T) {
	o := newOwner(t)
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/keys"))
	tb.until("the keys screen", `document.querySelectorAll(".key").length === 1 && document.title.indexOf("API keys") >= 0`)
	if got := tb.text(".key .key-used"); got != "Last used never" && !strings.HasPrefix(got, "Last used ") {
		t.Errorf("the agent's key reads %q", got)
	}

	// A blank name: the form comes back with the reason at the field, nothing made.
	tb.do(chromedp.SetValue(chromedp.CSS(`#key-name`), "   "), chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the refusal at the field", `!!document.querySelector("#key-name-err")`)
	if got := tb.text("#key-name-err"); !strings.Contains(got, "Give the key a name") {
		t.Errorf("the field's error reads %q", got)
	}
	if !eval[bool](tb, `document.querySelector("#key-name").getAttribute("aria-invalid") === "true" && document.querySelector("#key-name").getAttribute("aria-describedby").indexOf("key-name-err") >= 0`) {
		t.Error("the name field is not marked invalid and tied to its error")
	}
	if n := len(o.e.Must(200, "GET", "/v1/account/api-keys", o.key, nil)["keys"].([]any)); n != 1 {
		t.Fatalf("a refused form made a key: %d keys", n)
	}

	// Make one: shown in full, once.
	tb.do(chromedp.SetValue(chromedp.CSS(`#key-name`), "CI deploy"), chromedp.Click(chromedp.CSS(`.key-form input[value=test]`)),
		chromedp.Click(chromedp.CSS(`.key-form input[value=live]`)), chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the new key", `!!document.querySelector("#new-key") && document.querySelectorAll(".key").length === 2`)
	secret := tb.text("#new-key")
	if !strings.HasPrefix(secret, "sk_live_") || len(secret) < 40 {
		t.Fatalf("the new key reads %q", secret)
	}
	if !eval[bool](tb, `!!document.querySelector('button[data-copy="new-key"]') && !!document.querySelector(".copy-status[role=status]")`) {
		t.Error("no Copy button with its status line")
	}
	if got := eval[string](tb, keyRow("CI deploy")+`.querySelector(".key-prefix").innerText`); got != secret[:12]+"…" {
		t.Errorf("the new row shows %q, want the key's prefix %q", got, secret[:12]+"…")
	}
	tb.shotSettled("dash-keys-created")
	o.e.Must(200, "GET", "/v1/tenant", secret, nil)

	tb.do(chromedp.Navigate(o.e.Srv.URL + "/keys"))
	tb.until("the keys screen again", `document.querySelectorAll(".key").length === 2`)
	if body := eval[string](tb, `document.documentElement.outerHTML`); strings.Contains(body, secret) || strings.Contains(body, secret[12:]) {
		t.Fatal("the key is shown a second time")
	}

	// Revoke: the dialog asks; Keep it changes nothing.
	tb.eval0(keyRow("CI deploy") + `.querySelector(".key-revoke button").click()`)
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	if got := tb.text("dialog.confirm"); !containsAll(got, "Revoke “CI deploy”?", "refused") || strings.Contains(got, "only live key") {
		t.Errorf("the confirmation reads %q", got)
	}
	if got := eval[string](tb, `document.activeElement.innerText`); got != "Keep it" {
		t.Errorf("the dialog opens with focus on %q, want the safe choice", got)
	}
	tb.shotSettled("dash-keys-revoke-dialog")
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-secondary`)))
	tb.until("the dialog to close", `!document.querySelector("dialog.confirm")`)
	o.e.Must(200, "GET", "/v1/tenant", secret, nil)

	tb.eval0(keyRow("CI deploy") + `.querySelector(".key-revoke button").click()`)
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-danger`)))
	tb.until("the revoked key gone", `document.querySelectorAll(".key").length === 1 && !!document.querySelector(".notice[role=status]")`)
	if got := tb.text(".notice"); !strings.Contains(got, "revoked") {
		t.Errorf("the notice reads %q", got)
	}
	o.e.Must(401, "GET", "/v1/tenant", secret, nil)
	o.e.Must(200, "GET", "/v1/tenant", o.key, nil)

	// The one live key left says so, and so does its confirmation.
	if !eval[bool](tb, `!!document.querySelector(".key .key-warn")`) {
		t.Error("the only live key is not marked as such")
	}
	tb.do(chromedp.Click(chromedp.CSS(`.key .key-revoke button`)))
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	if got := tb.text("dialog.confirm"); !strings.Contains(got, "only live key") {
		t.Errorf("revoking the last live key does not warn: %q", got)
	}
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-secondary`)))
	o.e.Must(200, "GET", "/v1/tenant", o.key, nil)

	// The answer that holds a key is never stored by a cache.
	if got := await[string](tb, `fetch("/keys", {method: "POST", body: new URLSearchParams({csrf: document.querySelector("meta[name=csrf-token]").content, name: "fetched"})}).then(function(r){return r.status + " " + r.headers.get("Cache-Control")})`); got != "200 no-store" {
		t.Errorf("the answer with a new key is %q, want 200 no-store", got)
	}
}

// TestDashKeysWorkWithoutJavaScript: with scripts off, making a key is a plain
// post whose answer shows the key; revoking answers a page that asks first (and
// warns about the last live key); confirming there revokes it.
func TestDashKeysWorkWithoutJavaScript(t *testing.T) {
	o := newOwner(t)
	tb := o.tb
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Navigate(o.e.Srv.URL+"/keys"), chromedp.SetValue(chromedp.CSS(`#key-name`), "staging"),
		chromedp.Click(chromedp.CSS(`.key-form input[value=test]`)), chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the new key", `!!document.querySelector("#new-key")`)
	secret := tb.text("#new-key")
	if !strings.HasPrefix(secret, "sk_test_") {
		t.Fatalf("the new test key reads %q", secret)
	}
	o.e.Must(200, "GET", "/v1/tenant", secret, nil)

	// The agent's key is the only live one: the confirmation page warns.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/keys"))
	tb.until("the keys", `document.querySelectorAll(".key").length === 2`)
	tb.eval0(keyRow("Ops Bot") + `.querySelector(".key-revoke button").click()`)
	tb.until("the confirmation page", `document.querySelector("h1") && document.querySelector("h1").innerText === "Revoke “Ops Bot”?"`)
	if got := tb.text(".key-confirm"); !strings.Contains(got, "only live key") {
		t.Errorf("the confirmation page does not warn about the last live key: %q", got)
	}
	o.e.Must(200, "GET", "/v1/tenant", o.key, nil) // nothing happens before the answer
	tb.shotSettled("dash-keys-revoke-page")
	tb.do(chromedp.Click(chromedp.CSS(`.key-confirm .bt-secondary`)))
	tb.until("the keys again", `location.pathname === "/keys" && document.querySelectorAll(".key").length === 2`)

	tb.eval0(keyRow("staging") + `.querySelector(".key-revoke button").click()`)
	tb.until("the confirmation page", `document.querySelector("h1") && document.querySelector("h1").innerText === "Revoke “staging”?"`)
	if got := tb.text(".key-confirm"); strings.Contains(got, "only live key") {
		t.Errorf("revoking a test key warns about the last live key: %q", got)
	}
	tb.do(chromedp.Click(chromedp.CSS(`.key-confirm .bt-danger`)))
	tb.until("the notice", `location.pathname === "/keys" && !!document.querySelector(".notice") && document.querySelectorAll(".key").length === 1`)
	o.e.Must(401, "GET", "/v1/tenant", secret, nil)
}

// TestDashKeysIsAccessibleAndFitsAPhone: axe-core finds no serious or critical
// violation on the keys screen (with a key just shown, and with a refusal) nor on
// the page that asks before revoking, in light and dark; at 360 px nothing scrolls
// sideways.
func TestDashKeysIsAccessibleAndFitsAPhone(t *testing.T) {
	o := newOwner(t)
	for _, name := range []string{"production deploys from the release pipeline", "local"} {
		o.e.Must(201, "POST", "/v1/account/api-keys", o.key, map[string]any{"name": name, "mode": "test"})
	}
	o.e.Must(200, "GET", "/v1/tenant", o.key, nil) // the agent's key has been used
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/keys"))
	tb.until("the keys", `document.querySelectorAll(".key").length === 3`)
	tb.do(chromedp.SetValue(chromedp.CSS(`#key-name`), "A key with a rather long name that has to wrap on a phone"),
		chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the new key", `!!document.querySelector("#new-key")`)
	tb.noSeriousViolations("the keys screen with a new key")
	tb.shotSettled("dash-keys")
	tb.dark(true)
	tb.shotSettled("dash-keys-dark")
	tb.dark(false)
	tb.width(360)
	tb.noSideways("the keys screen with a new key")
	tb.shotSettled("dash-keys-360")
	tb.dark(true)
	tb.shotSettled("dash-keys-dark-360")
	tb.dark(false)

	tb.width(1000)
	tb.do(chromedp.Navigate(o.e.Srv.URL+"/keys"), chromedp.SetValue(chromedp.CSS(`#key-name`), " "),
		chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the refusal", `!!document.querySelector("#key-name-err")`)
	tb.noSeriousViolations("the keys screen with a refusal")
	if got := eval[string](tb, `document.activeElement.id`); got != "key-name" {
		t.Errorf("after a refusal, focus is on %q, not the field", got)
	}
	tb.width(360)
	tb.noSideways("the keys screen with a refusal")
	tb.shotSettled("dash-keys-refused-360")

	// The page that asks before revoking (the form posted without the dialog).
	tb.width(1000)
	tb.eval0(keyRow("Ops Bot") + `.querySelector(".key-revoke").submit()`)
	tb.until("the confirmation page", `!!document.querySelector(".key-confirm")`)
	tb.noSeriousViolations("the revoke confirmation page")
	tb.width(360)
	tb.noSideways("the revoke confirmation page")
	tb.shotSettled("dash-keys-revoke-page-360")
	tb.dark(true)
	tb.shotSettled("dash-keys-revoke-page-dark-360")
	tb.dark(false)
}

// TestDashKeysNamesAreText: keys named with the XSS payloads show as the text they
// are on the screen, in the answer that shows a new key, in the revoke dialog and on
// the revoke page; nothing runs.
func TestDashKeysNamesAreText(t *testing.T) {
	o := newOwner(t)
	var names []string
	for _, p := range payloads {
		if r := []rune(p); len(r) > 100 {
			p = string(r[:100])
		}
		names = append(names, p)
		o.e.Must(201, "POST", "/v1/account/api-keys", o.key, map[string]any{"name": p})
	}
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/keys"))
	tb.until("the keys", `document.querySelectorAll(".key").length === `+jsonString(len(payloads)+1))
	tb.do(chromedp.SetValue(chromedp.CSS(`#key-name`), payloads[1]), chromedp.Click(chromedp.CSS(`.key-form button[type=submit]`)))
	tb.until("the new key", `!!document.querySelector("#new-key")`)
	if got := tb.text(".key-shown h2"); !strings.Contains(got, payloads[1]) {
		t.Errorf("the new key's name reads %q", got)
	}
	noLiveMarkup(t, tb, "the keys screen")
	shown := eval[[]string](tb, `[...document.querySelectorAll(".key-name")].map(function(e){return e.textContent})`)
	for _, n := range names {
		if !strings.Contains(strings.Join(shown, "\n"), strings.TrimSpace(n)) {
			t.Errorf("the key named %q does not show as that text", n)
		}
	}
	tb.eval0(keyRow(strings.TrimSpace(names[0])) + `.querySelector(".key-revoke button").click()`)
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	if got := tb.text("dialog.confirm h2"); got != "Revoke “"+names[0]+"”?" {
		t.Errorf("the dialog reads %q", got)
	}
	noLiveMarkup(t, tb, "the revoke dialog")
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-secondary`)))

	// The page that asks without JavaScript: the form posted as it is (submit()
	// fires no submit event, so the dialog does not intercept it).
	tb.eval0(keyRow(strings.TrimSpace(names[5])) + `.querySelector(".key-revoke").submit()`)
	tb.until("the confirmation page", `!!document.querySelector(".key-confirm")`)
	if got := tb.text("h1"); got != "Revoke “"+names[5]+"”?" {
		t.Errorf("the confirmation page reads %q", got)
	}
	noLiveMarkup(t, tb, "the revoke page")
}

// shotSettled saves a screenshot once the theme's colour transitions have finished
// (a switch of theme or width leaves buttons mid-way for a moment).
func (tb *tab) shotSettled(name string) {
	tb.t.Helper()
	tb.until("the colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
	tb.shot(name)
}

// noLiveMarkup fails when anything written by an agent ran or became markup: the
// flag the payloads set is unset, and the DOM holds no script but the site's own,
// no event-handler attribute and no javascript:/data:/vbscript: address.
func noLiveMarkup(t *testing.T, tb *tab, where string) {
	t.Helper()
	if got := eval[any](tb, `window.__xss`); got != nil {
		t.Fatalf("a payload ran on %s: window.__xss = %v", where, got)
	}
	found := eval[[]string](tb, `(function(){var out=[];
		document.querySelectorAll("script").forEach(function(s){ if(!/^\/assets\/folio\.[0-9a-f]+\.js$/.test(s.getAttribute("src")||"")) out.push("script: "+s.outerHTML.slice(0,80)) });
		document.querySelectorAll("*").forEach(function(el){
			for (var i=0;i<el.attributes.length;i++){ var a=el.attributes[i], v=(a.value||"").replace(/[\s\u0000-\u001f]/g,"").toLowerCase();
				if (/^on/i.test(a.name)) out.push(el.tagName+" "+a.name);
				if (/^(href|src|action|formaction|poster|data|xlink:href|srcdoc)$/i.test(a.name) && /^(javascript|data|vbscript):/.test(v)) out.push(el.tagName+" "+a.name+"="+v.slice(0,40));
			}});
		document.querySelectorAll("iframe,object,embed,img,svg image,math").forEach(function(f){ out.push(f.tagName) });
		return out})()`)
	if len(found) > 0 {
		t.Errorf("%s holds live markup from input:\n%s", where, strings.Join(found, "\n"))
	}
}
