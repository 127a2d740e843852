package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

var decisionLinkIn = regexp.MustCompile(`Approve: (http://[0-9.:]+/a/fdl_[A-Z2-7]+)`)

// TestTheDecisionLinkConfirmationReadsAndWorksWithoutScript: the confirmation a
// mailed decision link opens, at 1280 and 390 px in light and dark, shows the
// page's title and summary, the action, the version and who decides, fits the
// width, and axe finds no serious violation; with JavaScript off, Tab reaches the
// confirm button and Enter decides (the page then opens, decided, signed in).
func TestTheDecisionLinkConfirmationReadsAndWorksWithoutScript(t *testing.T) {
	mail := nodetest.StartSMTP(t)
	e := nodetest.New(t, func(c *node.Config) { c.SMTPAddr, c.SMTPFrom = mail.Addr(), "Folio <noreply@folio.test>" })
	key, _ := e.Register("mail-link")
	id := publish(t, e, key, approvalPage(map[string]any{
		"summary": "Rolls billing-api v2 out to eu-1 and us-2 after the canary held for an hour with no errors.",
		"notify":  map[string]any{"channels": []any{map[string]any{"type": "email", "target": "alice@example.com"}}}}))
	m := mail.Wait(t, 10*time.Second, func(m nodetest.Mail) bool { return decisionLinkIn.MatchString(m.Text) })
	link := decisionLinkIn.FindStringSubmatch(m.Text)[1]

	tb := newTab(t)
	for _, w := range []int64{1280, 390} {
		tb.width(w)
		tb.dark(false)
		tb.do(chromedp.Navigate(link))
		tb.until("the confirmation", `!!document.querySelector(".link-confirm button[type=submit]")`)
		got := tb.text(".link-confirm")
		if !containsAll(got, "Approve?", "Deploy v2.4.1 to production?", "Rolls billing-api v2", "alice@example.com", "1 (the one your e-mail showed)", "Confirm: Approve") {
			t.Errorf("%d px: the confirmation reads:\n%s", w, got)
		}
		tb.noSidewaysScroll(fmt.Sprintf("the confirmation at %d px", w))
		for _, dark := range []bool{false, true} {
			tb.dark(dark)
			tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
			tb.shot(fmt.Sprintf("decision-link-%d-%s", w, map[bool]string{false: "light", true: "dark"}[dark]))
		}
		tb.noSeriousViolations(fmt.Sprintf("the confirmation at %d px", w))
	}
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
		t.Fatalf("opening the link (twice) left the page %v, want active", st)
	}

	// Without JavaScript: the keyboard alone confirms.
	nojs := newTab(t)
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	nojs.width(390)
	nojs.do(chromedp.Navigate(link))
	nojs.until("the confirmation", `!!document.querySelector(".link-confirm button[type=submit]")`)
	for i := 0; i < 20 && !eval[bool](nojs, `document.activeElement && document.activeElement.matches(".link-confirm button[type=submit]")`); i++ {
		nojs.do(chromedp.KeyEvent("\t"))
	}
	if !eval[bool](nojs, `document.activeElement.matches(".link-confirm button[type=submit]") && getComputedStyle(document.activeElement).outlineStyle !== "none"`) {
		t.Fatal("Tab does not reach the confirm button with a visible focus ring")
	}
	nojs.do(chromedp.KeyEvent("\r"))
	nojs.until("the decided page", `location.pathname === "/p/`+id+`" && document.body.innerText.indexOf("alice@example.com") >= 0`)
	nojs.shot("decision-link-decided-390-light")
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "completed" {
		t.Errorf("after confirming, the page is %v, want completed", st)
	}
	// The link again: it says it was used, and leads to the page.
	nojs.do(chromedp.Navigate(link))
	nojs.until("the used notice", `document.body.innerText.indexOf("already used") >= 0 && !!document.querySelector('a[href="/p/`+id+`"]')`)
	for _, dark := range []bool{false, true} {
		nojs.dark(dark)
		nojs.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
		nojs.shot(fmt.Sprintf("decision-link-used-390-%s", map[bool]string{false: "light", true: "dark"}[dark]))
	}
	// axe needs scripts: turned back on, they run only what is evaluated here.
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		t.Fatal(err)
	}
	nojs.noSeriousViolations("the used-link notice")
	if !strings.Contains(m.HTML, "Rolls billing-api v2") {
		t.Errorf("the mail's HTML lacks the summary:\n%s", m.HTML)
	}
}
