package page

import (
	"errors"
	"testing"
	"time"

	"folio/actors/model/fault"
	"folio/persistence"
	"folio/persistence/storetest"
)

// TestACreationNeverOverwritesAStoredPage: a fresh actor creates its page without
// reading the store first (assumeNew), so the commit alone must keep a stored page
// safe: a second creation under the same id, by a fresh actor that read nothing, is a
// 409 and leaves the stored page as it was, whether that page has a stored revision
// or was written before revisions were counted.
func TestACreationNeverOverwritesAStoredPage(t *testing.T) {
	store := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = store.Close() })
	deps := &Deps{Store: store, Now: time.Now, Limits: DefaultLimits}
	caller := Caller{TenantID: "ten_1", Agent: "agent:tester"}
	create := func(title string) any {
		prepared, err := Prepare(deps, "pg_1", caller, &Request{Title: &title}, true)
		if err != nil {
			t.Fatal(err)
		}
		fresh := &Actor{id: "pg_1", deps: deps}
		return fresh.decide(&Create{Caller: caller, Prepared: prepared})
	}
	storedTitle := func() string {
		p, _, err := load(store, "pg_1")
		if err != nil || p == nil {
			t.Fatalf("the stored page: %v, %v", p, err)
		}
		return p.Title
	}
	if res, ok := create("First").(*Result); !ok || res.Page.Title != "First" {
		t.Fatalf("the first creation answered %#v", res)
	}
	refused := func(when string) {
		t.Helper()
		var fe *fault.Error
		if err, _ := create("Second").(error); !errors.As(err, &fe) || fe.Code != fault.Conflict {
			t.Fatalf("%s: a second creation under the id answered %v, want a conflict", when, err)
		}
		if got := storedTitle(); got != "First" {
			t.Fatalf("%s: the stored page's title is %q after a refused creation, want %q", when, got, "First")
		}
	}
	refused("with a stored revision")
	if err := store.Update(func(tx *persistence.Tx) error { return tx.Delete(bucketPageRevs, []byte("pg_1")) }); err != nil {
		t.Fatal(err)
	}
	refused("stored before revisions were counted")
}
