package persistence

import (
	"os"

	"errors"
	"fmt"
	"folio/persistence/pgtest"
	"sync"
	"testing"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// engines names the engines every contract test runs on, with how to open a fresh,
// empty store on each (closed when the test ends): bbolt in a temporary
// directory, and a new database on the test PostgreSQL server (pgtest).
var engines = []struct {
	name string
	open func(t *testing.T) *Store
}{
	{"bolt", openTemp},
	{"postgres", func(t *testing.T) *Store {
		t.Helper()
		s, err := OpenURL(pgtest.URL(t), "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// onEachEngine runs test once per engine, as a subtest named for it.
func onEachEngine(t *testing.T, test func(t *testing.T, open func(t *testing.T) *Store)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { test(t, e.open) })
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

func TestConcurrentUpdatesAreAllCommitted(t *testing.T) {
	onEachEngine(t, concurrentUpdatesAreAllCommitted)
}

func concurrentUpdatesAreAllCommitted(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := s.Update(func(tx *Tx) error {
				return tx.Put("b", []byte(fmt.Sprintf("k%03d", i)), []byte("v"))
			}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	n := 0
	_ = s.View(func(tx *Tx) error {
		tx.Scan("b", []byte("k"), false, func(_, _ []byte) bool { n++; return true })
		return nil
	})
	if n != 200 {
		t.Fatalf("committed %d keys, want 200", n)
	}
}

func TestFailingFunctionDoesNotSinkItsBatch(t *testing.T) {
	onEachEngine(t, failingFunctionDoesNotSinkItsBatch)
}

func failingFunctionDoesNotSinkItsBatch(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	boom := errors.New("boom")
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.Update(func(tx *Tx) error {
				if err := tx.Put("b", []byte(fmt.Sprintf("k%02d", i)), []byte("v")); err != nil {
					return err
				}
				if i%10 == 0 {
					return boom // its own write must be rolled back
				}
				if i%10 == 5 {
					panic("bad function")
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	_ = s.View(func(tx *Tx) error {
		for i := 0; i < 50; i++ {
			got := tx.Get("b", []byte(fmt.Sprintf("k%02d", i)))
			switch i % 10 {
			case 0:
				if !errors.Is(errs[i], boom) || got != nil {
					t.Errorf("k%02d: err=%v stored=%v; want boom and nothing stored", i, errs[i], got != nil)
				}
			case 5:
				if errs[i] == nil || got != nil {
					t.Errorf("k%02d: a panicking function must fail alone and store nothing", i)
				}
			default:
				if errs[i] != nil || got == nil {
					t.Errorf("k%02d: err=%v stored=%v; want committed", i, errs[i], got != nil)
				}
			}
		}
		return nil
	})
}

func TestUpdateAfterCloseFails(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(*Tx) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Update after Close = %v, want ErrClosed", err)
	}
}

func TestReverseScanOrder(t *testing.T) { onEachEngine(t, reverseScanOrder) }

func reverseScanOrder(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	_ = s.Update(func(tx *Tx) error {
		for i := 1; i <= 5; i++ {
			_ = tx.Put("b", Key([]byte("t1"), U64(uint64(i))), nil)
		}
		_ = tx.Put("b", Key([]byte("t2"), U64(1)), nil)
		return nil
	})
	var got []uint64
	_ = s.View(func(tx *Tx) error {
		p := append([]byte("t1"), 0)
		tx.Scan("b", p, true, func(k, _ []byte) bool { got = append(got, ReadU64(k[len(p):])); return true })
		return nil
	})
	if fmt.Sprint(got) != "[5 4 3 2 1]" {
		t.Fatalf("reverse scan = %v", got)
	}
}
