package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/fakeoauth"
)

// buttonContrastJS gives, for each button of the sign-in box, its label and the
// WCAG contrast of its text on its own background, as drawn at this moment.
const buttonContrastJS = `Array.prototype.map.call(document.querySelectorAll(".signin .bt"),function(b){
	function rgba(c){var m=c.match(/[\d.]+/g)||[0,0,0,0];return [+m[0],+m[1],+m[2],m.length>3?+m[3]:1]}
	function lum(c){var v=c.slice(0,3).map(function(x){x/=255;return x<=0.03928?x/12.92:Math.pow((x+0.055)/1.055,2.4)});return .2126*v[0]+.7152*v[1]+.0722*v[2]}
	var s=getComputedStyle(b),fg=rgba(s.color),bg=rgba(s.backgroundColor);
	if(bg[3]<1)return b.innerText.trim()+": see-through background "+s.backgroundColor;
	var a=lum(fg),c=lum(bg);return b.innerText.trim()+": "+((Math.max(a,c)+.05)/(Math.min(a,c)+.05)).toFixed(2)})`

// TestSignInButtonsReadInTheDarkTheMomentItApplies: on the sign-in page, at 360,
// 390 and 1280 px, every button's text stands at 4.5:1 or more on its own
// background in dark, from the moment the dark theme applies (before, the buttons'
// backgrounds eased over from the light theme while their text switched at once:
// "Continue with GitHub" was light text on a light button and the mail button dark
// text on a dark blue), and axe finds no serious violation in either theme.
func TestSignInButtonsReadInTheDarkTheMomentItApplies(t *testing.T) {
	idp := fakeoauth.Start(t)
	e := nodetest.New(t, func(c *node.Config) {
		c.GitHub = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret,
			AuthURL: idp.GitHubAuthURL(), TokenURL: idp.GitHubTokenURL(), APIURL: idp.GitHubAPIURL()}
		c.Google = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, Issuer: idp.GoogleIssuer()}
	})
	tb := newTab(t)
	for _, w := range []int64{360, 390, 1280} {
		tb.width(w)
		tb.dark(false)
		tb.do(chromedp.Navigate(e.Srv.URL + "/login"))
		tb.until("the provider buttons", `document.querySelectorAll(".signin .provider").length === 2`)
		tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
		for _, dark := range []bool{true, false} {
			tb.dark(dark)
			got := eval[[]string](tb, buttonContrastJS) // at once: no settling allowed
			if len(got) != 3 {
				t.Fatalf("%d px: buttons %v", w, got)
			}
			for _, b := range got {
				var label string
				var ratio float64
				if _, err := fmt.Sscanf(reverseColon(b), "%f", &ratio); err != nil || ratio < 4.5 {
					label = b
				}
				if label != "" {
					t.Errorf("%d px, dark %v: %s (want 4.5:1 or more)", w, dark, label)
				}
			}
			theme := map[bool]string{false: "light", true: "dark"}[dark]
			tb.shot(fmt.Sprintf("signin-buttons-%d-%s", w, theme))
		}
		tb.noSeriousViolations(fmt.Sprintf("the sign-in page at %d px", w))
	}
}

// reverseColon is the text after the last ": " of s.
func reverseColon(s string) string {
	for i := len(s) - 2; i >= 0; i-- {
		if s[i] == ':' && s[i+1] == ' ' {
			return s[i+2:]
		}
	}
	return s
}
