package maillink

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/persistence"
)

// TestALinkIsStoredAsAHashPeekedFreelyAndSpentOnce: the store holds no token;
// Peek leaves the link usable; of 16 concurrent uses exactly one spends it; a used
// link and one past its expiry say so; a wrong token is unknown.
func TestALinkIsStoredAsAHashPeekedFreelyAndSpentOnce(t *testing.T) {
	store, err := persistence.Open(t.TempDir(), persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var token, expired string
	if err := store.Update(func(tx *persistence.Tx) error {
		var err error
		if token, err = Mint(tx, Link{PageID: "pg_1", Email: "a@example.com", ActionID: "approve", PageVersion: 3, ExpiresAt: now.Add(time.Hour)}); err != nil {
			return err
		}
		expired, err = Mint(tx, Link{PageID: "pg_1", Email: "a@example.com", ActionID: "reject", ExpiresAt: now})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !Valid(token) || !strings.HasPrefix(token, Prefix) {
		t.Fatalf("token %q", token)
	}
	if err := store.View(func(tx *persistence.Tx) error {
		if raw := tx.Get(bucket, hashOf(token)); raw == nil || strings.Contains(string(raw), token[len(Prefix):]) {
			t.Errorf("stored row %s (want the link, without its token)", raw)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if l, err := Peek(store, token, now); err != nil || l.ActionID != "approve" || l.PageVersion != 3 {
			t.Fatalf("Peek = %+v, %v", l, err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, used := 0, 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Use(store, token, now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, ErrUsed):
				used++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || used != 15 {
		t.Errorf("16 uses: %d spent it, %d found it used; want 1 and 15", won, used)
	}
	if _, err := Peek(store, token, now); !errors.Is(err, ErrUsed) {
		t.Errorf("Peek after use: %v", err)
	}
	if _, err := Use(store, expired, now); !errors.Is(err, ErrExpired) {
		t.Errorf("an expired link: %v", err)
	}
	for _, bad := range []string{"", "fdl_", token[:len(token)-1] + "A", strings.ToLower(token), "ml_x"} {
		if bad == token {
			continue
		}
		if _, err := Peek(store, bad, now); !errors.Is(err, ErrUnknown) {
			t.Errorf("Peek(%q) = %v, want unknown", bad, err)
		}
	}
}
