package persistence

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// An ordered key reads back as what was written, orders by its number inside its
// scope, and is not mistaken for a key of another scope or shape.
func TestOrderedKeysReadBackAndOrder(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 123, time.UTC)
	for _, o := range []Ordered{{"ten_1", Nanos(at), "dlv_9"}, {"", 42, "pg_1"}, {"a", 0, ""}, {"b", 1 << 63, "x\x00y"}} {
		got, ok := ParseOrdered(o.Key(), o.Scope)
		if !ok || got != o {
			t.Errorf("ParseOrdered(%q) = %+v %v, want %+v", o.Key(), got, ok, o)
		}
	}
	if got, _ := ParseOrdered(Ordered{"t", Nanos(at), "i"}.Key(), "t"); !got.Time().Equal(at) {
		t.Errorf("the time read back is %v, want %v", got.Time(), at)
	}
	if bytes.Compare(Ordered{"t", 255, "z"}.Key(), Ordered{"t", 256, "a"}.Key()) >= 0 {
		t.Error("a smaller number does not sort first")
	}
	for _, k := range [][]byte{Ordered{"ten_10", 1, "i"}.Key(), []byte("ten_1"), []byte("ten_1\x00short"), Key([]byte("ten_1"), []byte("12345678"))} {
		if o, ok := ParseOrdered(k, "ten_1"); ok && string(k) != string(Ordered{"ten_1", o.N, o.ID}.Key()) {
			t.Errorf("ParseOrdered(%q, ten_1) took a key of another scope or shape: %+v", k, o)
		}
	}
	if _, ok := ParseOrdered(Ordered{"ten_10", 1, "i"}.Key(), "ten_1"); ok {
		t.Error("a key of scope ten_10 read as one of ten_1")
	}
}

// A page of a filtered listing counts every kept row and hands over only its own.
func TestPagedCountsAllAndTakesItsPage(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx *Tx) error {
		for i := range 10 {
			if err := tx.Put("rows", Ordered{"s", uint64(i), "r"}.Key(), []byte{byte(i % 2)}); err != nil {
				return err
			}
		}
		return tx.Put("rows", Ordered{"t", 0, "other"}.Key(), []byte{1})
	}); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	var total int
	err = s.View(func(tx *Tx) error {
		var err error
		total, err = tx.Paged("rows", ScopePrefix("s"), true, 2, 1,
			func(_, v []byte) bool { return v[0] == 1 },
			func(k, _ []byte) error { o, _ := ParseOrdered(k, "s"); got = append(got, o.N); return nil })
		return err
	})
	if err != nil || total != 5 || len(got) != 2 || got[0] != 7 || got[1] != 5 {
		t.Fatalf("the second and third odd rows, newest first: total %d, got %v (%v); want 5, [7 5]", total, got, err)
	}
}

// A due index hands out what is due by a time, earliest first and at most the
// limit asked, and nothing due later.
func TestDueListsWhatIsDueEarliestFirst(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	err = s.Update(func(tx *Tx) error {
		for i, id := range []string{"pg_c", "pg_a", "pg_d", "pg_b"} {
			at := base.Add(time.Duration([]int{3, 1, 9, 2}[i]) * time.Minute)
			if err := tx.Put("due", DueKey(at, id), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var all, two []Ordered
	_ = s.View(func(tx *Tx) error {
		all = tx.Due("due", base.Add(3*time.Minute), 10)
		two = tx.Due("due", base.Add(time.Hour), 2)
		return nil
	})
	var ids []string
	for _, o := range all {
		ids = append(ids, o.ID)
	}
	if got := strings.Join(ids, ","); got != "pg_a,pg_b,pg_c" {
		t.Errorf("due by +3m: %s, want pg_a,pg_b,pg_c (pg_d is due at +9m)", got)
	}
	if len(all) > 0 && !all[0].Time().Equal(base.Add(time.Minute)) {
		t.Errorf("the first row's time reads %v", all[0].Time())
	}
	if len(two) != 2 || two[1].ID != "pg_b" {
		t.Errorf("with a limit of 2: %+v", two)
	}
}
