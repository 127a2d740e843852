package maillink

import (
	"errors"
	"testing"
	"time"

	"folio/persistence"
)

// TestLinksAreForgottenAMonthAfterTheyExpire: a link whose expiry is more than
// Kept ago is swept (it then reads as unknown), one expired more recently still
// says it expired, a live one works; a sweep takes at most max rows, and SweepAll
// goes on until none is due.
func TestLinksAreForgottenAMonthAfterTheyExpire(t *testing.T) {
	store, err := persistence.Open(t.TempDir(), persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	mint := func(expires time.Time) string {
		var token string
		if err := store.Update(func(tx *persistence.Tx) error {
			var err error
			token, err = Mint(tx, Link{PageID: "pg_1", Email: "a@example.com", ActionID: "approve", ExpiresAt: expires})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return token
	}
	var old []string
	for i := range 5 {
		old = append(old, mint(now.Add(-Kept-time.Duration(i+1)*time.Hour)))
	}
	recent, live := mint(now.Add(-Kept+time.Hour)), mint(now.Add(time.Hour))

	if n, err := Sweep(store, now, 2); err != nil || n != 2 {
		t.Fatalf("a sweep of at most 2: %d %v", n, err)
	}
	if err := SweepAll(store, now, 2); err != nil {
		t.Fatal(err)
	}
	for i, tok := range old {
		if _, err := Peek(store, tok, now); !errors.Is(err, ErrUnknown) {
			t.Errorf("link %d, expired more than %v ago: %v, want it swept (unknown)", i, Kept, err)
		}
	}
	if _, err := Peek(store, recent, now); !errors.Is(err, ErrExpired) {
		t.Errorf("a link expired %v ago: %v, want it kept and expired", Kept-time.Hour, err)
	}
	if _, err := Peek(store, live, now); err != nil {
		t.Errorf("a live link: %v", err)
	}
	rows := 0
	if err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(dueBucket, nil, false, func(_, _ []byte) bool { rows++; return true })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rows != 2 {
		t.Errorf("%d due rows left, want 2 (the recent and the live link)", rows)
	}
}
