package persistence

import (
	"errors"
	"testing"
)

// Store.Get reads one committed record as a view of that one read would: the
// value last committed (in kv or in a bucket with a table of its own), nil for an
// absent key, a copy the caller may change, and ErrUnavailable once the store is
// closed.
func TestGetReadsOneCommittedRecord(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		for _, bucket := range []string{"b", "pages"} { // kv, and a routed table on PostgreSQL
			if err := s.Update(func(tx *Tx) error { return tx.Put(bucket, []byte("k"), []byte(`{"v":1}`)) }); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(bucket, []byte("k"))
			if err != nil || string(got) != `{"v":1}` {
				t.Fatalf("%s: Get = %q, %v; want the committed value", bucket, got, err)
			}
			got[0] = 'X' // the caller's copy
			if again, _ := s.Get(bucket, []byte("k")); string(again) != `{"v":1}` {
				t.Fatalf("%s: after changing the returned value, Get = %q", bucket, again)
			}
			if err := s.Update(func(tx *Tx) error { return tx.Put(bucket, []byte("k"), []byte(`{"v":2}`)) }); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Get(bucket, []byte("k")); string(got) != `{"v":2}` {
				t.Fatalf("%s: after a second commit Get = %q", bucket, got)
			}
			if got, err := s.Get(bucket, []byte("absent")); got != nil || err != nil {
				t.Fatalf("%s: absent key: %q, %v; want nil and no error", bucket, got, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get("b", []byte("k")); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrClosed) {
			t.Fatalf("Get after Close = %v, want ErrUnavailable and ErrClosed", err)
		}
	})
}
