package oauth

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"folio/transport/node/nodetest/fakeoauth"
)

// network is a transport that counts requests and fails them while down.
type network struct {
	down     atomic.Bool
	requests atomic.Int32
}

func (n *network) RoundTrip(r *http.Request) (*http.Response, error) {
	n.requests.Add(1)
	if n.down.Load() {
		return nil, errors.New("network is down")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestGoogleDiscoversOnFirstUseAndRetriesAfterAFailure(t *testing.T) {
	f := fakeoauth.Start(t)
	n := &network{}
	n.down.Store(true)
	g := NewGoogle(GoogleConfig{
		ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, RedirectURL: redirectURL,
		Issuer: f.GoogleIssuer(), HTTPClient: &http.Client{Transport: n},
	})
	if got := n.requests.Load(); got != 0 {
		t.Fatalf("NewGoogle made %d requests, want none", got)
	}

	if u := g.AuthURL("s", NewVerifier()); u != "" {
		t.Fatalf("AuthURL without network = %q, want \"\"", u)
	}
	if _, err := g.Identity(t.Context(), "code", NewVerifier()); err == nil {
		t.Fatal("Identity without network succeeded")
	}
	if got := n.requests.Load(); got != 2 {
		t.Fatalf("%d discovery attempts, want 2 (one per use)", got)
	}

	n.down.Store(false)
	verifier := NewVerifier()
	code := authorize(t, g, "s", verifier) // discovery succeeds now
	before := n.requests.Load()
	g.AuthURL("s", NewVerifier())
	if got := n.requests.Load(); got != before {
		t.Fatalf("AuthURL after a successful discovery made %d requests, want none", got-before)
	}
	id, err := g.Identity(t.Context(), code, verifier)
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "1001" || id.Email != "octo@example.com" {
		t.Fatalf("Identity = %+v", id)
	}
}
