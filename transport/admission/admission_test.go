package admission

import (
	"strings"
	"testing"
	"time"

	"folio/actors/model/fault"
)

// refusal is err's fault, failing unless it is code.
func refusal(t *testing.T, err error, code string) *fault.Error {
	t.Helper()
	fe, ok := err.(*fault.Error)
	if !ok || fe.Code != code {
		t.Fatalf("want a %s fault, got %v", code, err)
	}
	return fe
}

// TestAnAddressSpendsItsAnonymousComments: an address without a credential has
// its comments per hour, each answered with the rate to write; past them the 429
// names the limit and scope, its retry_after the seconds to the next comment, and
// says that signing in lifts it. A credential (a key, a session) is not counted,
// another address has its own budget, and the hour gives one back.
func TestAnAddressSpendsItsAnonymousComments(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	ru := New(Limits{Enforce: true, AnonCommentsPerHour: 3}, clock)
	for i := range 3 {
		rate, err := ru.AnonComment("198.51.100.7", "")
		if err != nil || rate.Policy != "anonymous_comments" || rate.Decision.Limit != 3 || rate.Decision.Remaining != 2-i {
			t.Fatalf("comment %d: %+v %v", i+1, rate, err)
		}
	}
	rate, err := ru.AnonComment("198.51.100.7", "")
	fe := refusal(t, err, fault.RateLimited)
	if rate.Decision.Allowed || fe.Details["limit"] != "anonymous_comments" || fe.Details["scope"] != "address" || fe.Details["per_window"] != int64(3) {
		t.Fatalf("the fourth: %+v %v", rate, fe.Details)
	}
	if s, _ := fe.Details["retry_after"].(int); s < 1 || s > 1200 {
		t.Fatalf("retry_after %v, want the seconds until one comment is back (at most 1,200)", fe.Details["retry_after"])
	}
	if want := "sign in to comment"; !strings.Contains(fe.Message, want) {
		t.Fatalf("the refusal %q does not say %q", fe.Message, want)
	}
	for _, cred := range []string{CredentialKey("k1", ""), CredentialKey("", "s1")} {
		if rate, err := ru.AnonComment("198.51.100.7", cred); err != nil || rate.Policy != "" {
			t.Fatalf("with %s: %+v %v, want nothing counted", cred, rate, err)
		}
	}
	if _, err := ru.AnonComment("203.0.113.9", ""); err != nil {
		t.Fatalf("another address: %v", err)
	}
	now = now.Add(time.Hour)
	if _, err := ru.AnonComment("198.51.100.7", ""); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
	if rate, err := New(Limits{AnonCommentsPerHour: 1}, clock).AnonComment("198.51.100.7", ""); err != nil || rate.Policy != "" {
		t.Fatalf("limits not enforced: %+v %v", rate, err)
	}
}

// TestAnAddressSpendsItsAnonymousUploadBytes: uploads are counted in bytes; one
// past the budget is refused naming anonymous_upload_bytes, a smaller one still fits.
func TestAnAddressSpendsItsAnonymousUploadBytes(t *testing.T) {
	ru := New(Limits{Enforce: true, AnonUploadBytesPerHour: 1000}, nil)
	if _, err := ru.AnonUpload("a", "", 900); err != nil {
		t.Fatal(err)
	}
	_, err := ru.AnonUpload("a", "", 200)
	if fe := refusal(t, err, fault.RateLimited); fe.Details["limit"] != "anonymous_upload_bytes" || !strings.Contains(fe.Message, "sign in to upload") {
		t.Fatalf("past the bytes: %v", fe)
	}
	if _, err := ru.AnonUpload("a", "", 100); err != nil {
		t.Fatalf("what still fits: %v", err)
	}
	if _, err := ru.AnonUpload("a", CredentialKey("k", ""), 1<<30); err != nil {
		t.Fatalf("with a key: %v", err)
	}
}

// TestOpenPlacesAreHeldAndGivenBack: streams are bounded per address and per
// credential (429, scope named, retry_after 10), all holds together by the node's
// Max (503); waits are counted apart from streams; a release given twice frees
// one place.
func TestOpenPlacesAreHeldAndGivenBack(t *testing.T) {
	ru := New(Limits{Open: OpenLimits{StreamsPerAddress: 3, StreamsPerCredential: 2, WaitsPerAddress: 1, Max: 5}}, nil)
	s1, err := ru.HoldStream("a", "session:s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ru.HoldStream("a", "session:s"); err != nil {
		t.Fatal(err)
	}
	_, err = ru.HoldStream("a", "session:s")
	fe := refusal(t, err, fault.RateLimited)
	if fe.Details["scope"] != "credential" || fe.Details["limit"] != "open_streams" || fe.Details["max_open"] != 2 || fe.Details["retry_after"] != 10 {
		t.Fatalf("the session's third: %v", fe.Details)
	}
	if _, err := ru.HoldStream("a", ""); err != nil { // the address's third, anonymous
		t.Fatal(err)
	}
	if fe := refusal(t, must2(ru.HoldStream("a", "key:k")), fault.RateLimited); fe.Details["scope"] != "address" {
		t.Fatalf("the address's fourth: %v", fe.Details)
	}
	if _, err := ru.HoldWait("a", "key:k"); err != nil {
		t.Fatalf("a wait beside three streams: %v", err)
	}
	if fe := refusal(t, must2(ru.HoldWait("a", "")), fault.RateLimited); fe.Details["limit"] != "open_waits" {
		t.Fatalf("the address's second wait: %v", fe.Details)
	}
	if _, err := ru.HoldStream("b", ""); err != nil { // the node's fifth
		t.Fatal(err)
	}
	if fe := refusal(t, must2(ru.HoldStream("c", "")), fault.Unavailable); fe.Details["scope"] != "server" || fe.Details["retry_after"] != 10 {
		t.Fatalf("the node's sixth: %v", fe.Details)
	}
	s1()
	s1()
	if _, err := ru.HoldStream("c", ""); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := ru.HoldStream("d", ""); err == nil {
		t.Fatal("a release given twice freed two places")
	}
}

func must2(_ func(), err error) error { return err }
