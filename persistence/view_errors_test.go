package persistence

import (
	"errors"
	"testing"
)

// A failed read (a View or a Get) is told apart from an absent record and from
// the reader's own error: only the store's failure is ErrUnavailable.
func TestViewTellsAFailedReadFromAnAbsentRecord(t *testing.T) {
	var failing bool
	down := errors.New("injected: connection reset")
	s, err := Open(t.TempDir(), Options{ReadFault: func() error {
		if failing {
			return down
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	var got []byte
	if err := s.View(func(tx *Tx) error { got = tx.Get("b", []byte("absent")); return nil }); err != nil || got != nil {
		t.Fatalf("absent record: %q, %v; want nil and no error", got, err)
	}
	mine := errors.New("the reader's own")
	if err := s.View(func(*Tx) error { return mine }); err != mine {
		t.Fatalf("the reader's error came back as %v, want it as is", err)
	}
	if got, err := s.Get("b", []byte("absent")); got != nil || err != nil {
		t.Fatalf("Get of an absent record: %q, %v; want nil and no error", got, err)
	}
	failing = true
	ran := false
	err = s.View(func(*Tx) error { ran = true; return nil })
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, down) || ran {
		t.Fatalf("failed read = %v (ran %v); want ErrUnavailable wrapping the cause, the reader not run", err, ran)
	}
	if _, err := s.Get("b", []byte("absent")); !errors.Is(err, ErrUnavailable) || !errors.Is(err, down) {
		t.Fatalf("failed Get = %v, want ErrUnavailable wrapping the cause", err)
	}
	failing = false
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.View(func(*Tx) error { return nil }); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrClosed) {
		t.Fatalf("View after Close = %v, want ErrUnavailable and ErrClosed", err)
	}
}

// lostEngine commits nothing: a store that does not answer, or a race lost more
// often than the engine retries it.
type lostEngine struct{ engine }

func (lostEngine) commit([]func(*Tx) error, []error) (int, error) {
	return 0, errors.New("ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)")
}

// A write the engine could not commit at all is ErrUnavailable (503, try again),
// never an unexplained error (500): nothing was written.
func TestAGroupTheEngineCouldNotCommitIsUnavailable(t *testing.T) {
	bolt, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(lostEngine{bolt.eng}, Options{})
	defer bolt.Close()
	err = s.Update(func(tx *Tx) error { return tx.Put("b", []byte("k"), []byte("v")) })
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a lost commit = %v, want ErrUnavailable", err)
	}
}
