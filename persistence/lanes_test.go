package persistence

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"folio/persistence/pgtest"
)

// On PostgreSQL a workspace's commit waits for no other workspace's group: while
// a write of workspace a is held inside its transaction, a write of b (in another
// lane) is committed and acknowledged; a second write of a waits, and commits
// after the first, having read what the first wrote (one key's writes keep their
// order).
func TestOneWorkspacesCommitDoesNotWaitForAnothers(t *testing.T) {
	s := openLanes(t)
	a := "ws_a"
	b := keyBeside(s, a, false)
	release, first := holdWrite(s, a, "a")
	second := make(chan error, 1)
	var seen []byte
	go func() {
		second <- s.UpdateOrdered(a, func(tx *Tx) error {
			seen = tx.Get("b", []byte("a"))
			return tx.Put("b", []byte("a"), []byte("2"))
		})
	}()
	other := make(chan error, 1)
	go func() {
		other <- s.UpdateOrdered(b, func(tx *Tx) error { return tx.Put("b", []byte("b"), []byte("1")) })
	}()
	select {
	case err := <-other:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		release()
		t.Fatalf("workspace %s's write waited for %s's group", b, a)
	}
	select {
	case err := <-second:
		t.Fatalf("a's second write was acknowledged (%v) while its first was still running", err)
	default:
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if string(seen) != "1" {
		t.Fatalf("a's second write read %q, want the first's 1", seen)
	}
	if got, _ := s.Get("b", []byte("a")); string(got) != "2" {
		t.Fatalf("a = %q after both, want 2", got)
	}
}

// Two workspaces whose keys hash to one lane share its groups: while a write of a
// is held, b's write waits for that group (the price of sharing a lane); then, in
// one group with a function of a that fails, b's write and a's next one commit,
// and only the failed function's write is missing.
func TestTwoWorkspacesInOneLaneCommitTogether(t *testing.T) {
	s := openLanes(t)
	a := "ws_a"
	b := keyBeside(s, a, true)
	release, held := holdWrite(s, a, "a0")
	refused := errors.New("refused by its function")
	results := make(chan string, 3)
	for _, w := range []struct{ ws, key string }{{b, "b1"}, {a, "a-fails"}, {a, "a1"}} {
		go func() {
			err := s.UpdateOrdered(w.ws, func(tx *Tx) error {
				if err := tx.Put("b", []byte(w.key), []byte("1")); err != nil {
					return err
				}
				if w.key == "a-fails" {
					return refused
				}
				return nil
			})
			results <- fmt.Sprintf("%s:%v", w.key, err)
		}()
	}
	select {
	case r := <-results:
		t.Fatalf("%s was acknowledged while the lane's group was held", r)
	case <-time.After(300 * time.Millisecond):
	}
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 3 {
		got[<-results] = true
	}
	for _, want := range []string{"b1:<nil>", "a1:<nil>", "a-fails:" + refused.Error()} {
		if !got[want] {
			t.Fatalf("the three writes answered %v, want %s among them", got, want)
		}
	}
	for key, want := range map[string]string{"a0": "1", "b1": "1", "a1": "1", "a-fails": ""} {
		if v, err := s.Get("b", []byte(key)); err != nil || string(v) != want {
			t.Fatalf("%s = %q (%v), want %q", key, v, err, want)
		}
	}
}

// openLanes opens a store on a new PostgreSQL database, with DefaultCommitLanes
// lanes (at least two).
func openLanes(t *testing.T) *Store {
	t.Helper()
	s, err := OpenURL(pgtest.URL(t), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if len(s.lanes) != DefaultCommitLanes || DefaultCommitLanes < 2 {
		t.Fatalf("%d lanes, want DefaultCommitLanes (%d, at least 2)", len(s.lanes), DefaultCommitLanes)
	}
	return s
}

// keyBeside is the first workspace key ws_0, ws_1, … whose lane is a's (same) or
// another (!same).
func keyBeside(s *Store, a string, same bool) string {
	for i := 0; ; i++ {
		if k := fmt.Sprintf("ws_%d", i); (s.laneOf(k) == s.laneOf(a)) == same {
			return k
		}
	}
}

// holdWrite starts a write of workspace ws that puts key "b"/key and is held
// inside its group until release is called; it returns once that write is running,
// with the channel its result comes on.
func holdWrite(s *Store, ws, key string) (release func(), done <-chan error) {
	entered, let := make(chan struct{}), make(chan struct{})
	res := make(chan error, 1)
	go func() {
		res <- s.UpdateOrdered(ws, func(tx *Tx) error {
			select {
			case <-entered:
			default:
				close(entered)
			}
			<-let
			return tx.Put("b", []byte(key), []byte("1"))
		})
	}()
	<-entered
	return func() { close(let) }, res
}
