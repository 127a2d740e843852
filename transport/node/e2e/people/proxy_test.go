package people_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"folio/transport/httpapi"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// forwarded is a client that sends every request with these headers, as a proxy
// in front of the node would (X-Forwarded-For, X-Forwarded-Proto).
func forwarded(e *nodetest.Env, headers map[string]string) *http.Client {
	c := browser(e, false)
	c.Transport = addHeaders{next: e.Srv.Client().Transport, headers: headers}
	return c
}

type addHeaders struct {
	next    http.RoundTripper
	headers map[string]string
}

func (a addHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range a.headers {
		r.Header.Set(k, v)
	}
	return a.next.RoundTrip(r)
}

// trustLoopback makes the test's own connections (127.0.0.1) a trusted proxy.
func trustLoopback(t *testing.T) nodetest.Option {
	proxies, err := httpapi.ParseTrustedProxies("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	return func(c *node.Config) { c.TrustedProxies = proxies }
}

// sendLinkAs is POST /v1/auth/magic-link/send through client c.
func sendLinkAs(t *testing.T, e *nodetest.Env, c *http.Client, email string) reply {
	t.Helper()
	return call(t, e, c, req{method: "POST", path: "/v1/auth/magic-link/send", body: map[string]any{"email": email}})
}

// TestForwardedForNamesTheClientOnlyBehindATrustedProxy: behind a trusted proxy
// (--trusted-proxies 127.0.0.1/32) two clients, told apart by X-Forwarded-For, have
// sign-in link buckets of their own: the first one's 21st link is 429 and the
// second's first is sent; a client cannot escape its bucket by prepending an
// address of its choosing (the proxy appends the real one, read from the right).
// Without the setting the header is ignored: a client changing it on every
// request is still one address, refused at its 21st link.
func TestForwardedForNamesTheClientOnlyBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t, trustLoopback(t))
	alice := forwarded(e, map[string]string{"X-Forwarded-For": "203.0.113.1"})
	for i := range 20 {
		wantSent(t, sendLinkAs(t, e, alice, fmt.Sprintf("a%d@example.com", i)))
	}
	wantError(t, "the first client's 21st link", sendLinkAs(t, e, alice, "a20@example.com"), 429, "RATE_LIMITED", map[string]any{"scope": "address"})
	spoof := forwarded(e, map[string]string{"X-Forwarded-For": "198.51.100.77, 203.0.113.1"})
	wantError(t, "the first client naming another address before its own", sendLinkAs(t, e, spoof, "a21@example.com"), 429, "RATE_LIMITED", map[string]any{"scope": "address"})
	bob := forwarded(e, map[string]string{"X-Forwarded-For": "203.0.113.2"})
	wantSent(t, sendLinkAs(t, e, bob, "bob@example.com"))
	v6 := forwarded(e, map[string]string{"X-Forwarded-For": "2001:db8:1:2::5, 127.0.0.1"}) // a trusted hop is skipped
	wantSent(t, sendLinkAs(t, e, v6, "carol@example.com"))

	plain := nodetest.New(t)
	for i := range 20 {
		c := forwarded(plain, map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i+1)})
		wantSent(t, sendLinkAs(t, plain, c, fmt.Sprintf("p%d@example.com", i)))
	}
	c := forwarded(plain, map[string]string{"X-Forwarded-For": "203.0.113.99"})
	wantError(t, "the 21st link from an untrusted peer naming yet another address", sendLinkAs(t, plain, c, "p20@example.com"), 429, "RATE_LIMITED", map[string]any{"scope": "address"})
}

// TestForwardedProtoMakesTheSessionCookieSecureOnlyFromATrustedProxy: a node on an
// http base URL behind a trusted proxy that terminates TLS (X-Forwarded-Proto:
// https) hands out a Secure session cookie; the same header from an untrusted peer
// leaves the cookie as the connection is (not Secure).
func TestForwardedProtoMakesTheSessionCookieSecureOnlyFromATrustedProxy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		opts       []nodetest.Option
		wantSecure bool
	}{
		{"trusted", []nodetest.Option{trustLoopback(t)}, true},
		{"untrusted", nil, false},
	} {
		in := newInbox(t)
		e := nodetest.New(t, append(tc.opts, mailTo(in.SMTP))...)
		proxy := forwarded(e, map[string]string{"X-Forwarded-Proto": "https"})
		wantSent(t, sendLinkAs(t, e, proxy, "dana@example.com"))
		link := linkIn(t, e, in.next(t, "dana@example.com"))
		r := call(t, e, proxy, req{method: "POST", path: "/v1/auth/magic-link/verify", body: map[string]any{"token": tokenOf(link)}})
		_, raw, ok := r.cookie(sessionCookie)
		if r.Status != 303 || !ok {
			t.Fatalf("%s: following the link: %d %v", tc.name, r.Status, r.SetCookie)
		}
		if secure := strings.Contains(raw, "; Secure"); secure != tc.wantSecure {
			t.Errorf("%s proxy: session cookie %q, Secure = %v, want %v", tc.name, raw, secure, tc.wantSecure)
		}
	}
}
