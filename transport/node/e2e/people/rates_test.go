package people_test

import (
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestSignedInPeopleHaveARateBucketOfTheirOwn: with limits on, requests without a
// credential share their client address's bucket, and it runs out; a signed-in
// person's requests from that same address are counted in their own bucket, at
// the people's rate, and go on.
func TestSignedInPeopleHaveARateBucketOfTheirOwn(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) { c.EnforceLimits, c.AnonPerMinute = true, 4 })
	token := signIn(t, e, in, "pat@example.com") // the send and the follow spend two of the address's four
	for i := 0; ; i++ {
		r := call(t, e, nil, req{method: "GET", path: "/login"})
		if r.Status == 429 {
			break
		}
		if i > 4 {
			t.Fatal("the anonymous bucket of the address never ran out")
		}
	}
	for i := range 10 {
		r := call(t, e, nil, req{method: "GET", path: "/v1/auth/me", bearer: token})
		if r.Status != 200 {
			t.Fatalf("a signed-in request %d from the same address: %d %s", i, r.Status, r.Body)
		}
		if got := r.Header.Get("RateLimit-Policy"); got != `"person";q=600;w=60` {
			t.Fatalf("RateLimit-Policy = %q, want the person's own", got)
		}
	}
	r := call(t, e, nil, req{method: "GET", path: "/", cookie: token})
	if r.Status != 200 {
		t.Fatalf("the start page with the session cookie, from the exhausted address: %d", r.Status)
	}
}
