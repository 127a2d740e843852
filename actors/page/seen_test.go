package page

import (
	"errors"
	"testing"
	"time"

	"folio/actors/model/fault"
	"folio/persistence/storetest"
)

// TestTheSeenRecordKeepsTheNewestVersionOfABoundedSetOfPeople: a signed-in
// person's last seen version never goes down; a version the page never had is 400
// naming the field; someone not signed in is 401 (their browser remembers); and a
// page keeps SeenPerPage people, forgetting the one recorded longest ago first.
func TestTheSeenRecordKeepsTheNewestVersionOfABoundedSetOfPeople(t *testing.T) {
	store := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = store.Close() })
	now := time.Unix(1_800_000_000, 0)
	a := &Actor{id: "pg_1", page: &Page{ID: "pg_1", TenantID: "ten_1", Status: Active, Version: 5, Access: Access{Mode: "public"}},
		deps: &Deps{Store: store, Now: func() time.Time { now = now.Add(time.Second); return now }, SeenPerPage: 2}}
	seen := func(person string, v int) any {
		return a.markSeen(&MarkSeen{Viewer: Viewer{Person: person}, Version: v})
	}
	if got := seen("ann@example.com", 3); got.(*SeenResult).Version != 3 {
		t.Fatalf("first record: %v", got)
	}
	if got := seen("ann@example.com", 2); got.(*SeenResult).Version != 3 || a.seenBy("ann@example.com") != 3 {
		t.Fatalf("an older version lowered the record: %v, %d", got, a.seenBy("ann@example.com"))
	}
	for _, v := range []int{0, 6} {
		var fe *fault.Error
		if err, _ := seen("ann@example.com", v).(error); !errors.As(err, &fe) || fe.Code != fault.Invalid || fe.Details["field"] != "version" {
			t.Errorf("version %d: %v", v, err)
		}
	}
	var fe *fault.Error
	if err, _ := seen("", 1).(error); !errors.As(err, &fe) || fe.Code != fault.Unauthorized {
		t.Errorf("no person: %v", err)
	}
	seen("bob@example.com", 4)
	seen("ann@example.com", 5) // Ann is now the most recent; Bob the oldest
	seen("cy@example.com", 1)  // a third person: Bob is forgotten
	for person, want := range map[string]int{"ann@example.com": 5, "bob@example.com": 0, "cy@example.com": 1} {
		if got := a.seenBy(person); got != want {
			t.Errorf("%s: seen %d, want %d", person, got, want)
		}
	}
}
