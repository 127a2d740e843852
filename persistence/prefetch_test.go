//go:build linux

package persistence

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestPrefetchedRecordsReadAsTheirGets: on each engine, a function that
// prefetches records and then reads them sees exactly what its reads alone would
// see: stored values, absent keys, its own earlier writes (not the stored value),
// records of a routed table beside kv ones; and a prefetch in a function that
// fails leaves nothing behind for the next function of the group.
func TestPrefetchedRecordsReadAsTheirGets(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open func(t *testing.T) *Store) {
		s := open(t)
		if err := s.Update(func(tx *Tx) error {
			_ = tx.Put("b", []byte("stored"), []byte("v1"))
			_ = tx.Put("b", []byte("mine"), []byte("old"))
			return tx.Put(headBucket, []byte("chain"), append(U64(7), "h"...))
		}); err != nil {
			t.Fatal(err)
		}
		reads := []Read{{"b", []byte("stored")}, {"b", []byte("absent")}, {"b", []byte("mine")}, {headBucket, []byte("chain")}, {"b", []byte("stored")}}
		check := func(tx *Tx, mine string) {
			t.Helper()
			if got := string(tx.Get("b", []byte("stored"))); got != "v1" {
				t.Errorf("stored reads %q after the prefetch, want v1", got)
			}
			if got := tx.Get("b", []byte("absent")); got != nil {
				t.Errorf("absent reads %q after the prefetch, want nothing", got)
			}
			if got := string(tx.Get("b", []byte("mine"))); got != mine {
				t.Errorf("mine reads %q after the prefetch, want %q", got, mine)
			}
			if seq, hash := tx.auditHead("chain"); seq != 7 || hash != "h" {
				t.Errorf("the routed chain head reads %d %q after the prefetch, want 7 h", seq, hash)
			}
		}
		failed := errors.New("this function fails")
		errs := make([]error, 3)
		if _, err := s.eng.commit([]func(*Tx) error{
			func(tx *Tx) error {
				_ = tx.Put("b", []byte("mine"), []byte("new"))
				tx.Prefetch(reads...)
				check(tx, "new")
				return tx.Put("b", []byte("absent"), []byte("created"))
			},
			func(tx *Tx) error {
				_ = tx.Put("b", []byte("stored"), []byte("undone"))
				tx.Prefetch(Read{"b", []byte("stored")}, Read{"b", []byte("later")})
				return failed
			},
			func(tx *Tx) error {
				tx.Prefetch(reads...)
				if got := string(tx.Get("b", []byte("absent"))); got != "created" {
					t.Errorf("a later function reads %q where the first created the key, want created", got)
				}
				if got := string(tx.Get("b", []byte("stored"))); got != "v1" {
					t.Errorf("a later function reads %q where a failed one wrote, want v1", got)
				}
				return nil
			},
		}, errs); err != nil {
			t.Fatal(err)
		}
		if !errors.Is(errs[1], failed) || errs[0] != nil || errs[2] != nil {
			t.Fatalf("errors %v, want only the second function's", errs)
		}
		_ = s.View(func(tx *Tx) error {
			tx.Prefetch(reads...)
			if a, st, m := string(tx.Get("b", []byte("absent"))), string(tx.Get("b", []byte("stored"))), string(tx.Get("b", []byte("mine"))); a != "created" || st != "v1" || m != "new" {
				t.Errorf("a read after the commit sees absent %q, stored %q, mine %q; want created, v1, new", a, st, m)
			}
			return nil
		})
	})
}

// TestPrefetchedRowsAreLockedOnASharedStore: two nodes, 8 writers each, each
// increment prefetching the counter it reads and writes and a key of its own it
// creates if absent: no increment is lost (the prefetch locked the counter as its
// read would have) and of two writers creating one key, one does.
func TestPrefetchedRowsAreLockedOnASharedStore(t *testing.T) {
	nodes, _ := twoNodes(t, 0)
	const writers, each = 8, 25
	var mu sync.Mutex
	created := map[string]int{}
	var wg sync.WaitGroup
	for w := range 2 * writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := []byte(fmt.Sprint("k", (w/2)*each+i)) // two writers, one on each node, per key
				var mine bool
				if err := nodes[w%2].Update(func(tx *Tx) error {
					tx.Prefetch(Read{"b", []byte("counter")}, Read{"claims", key})
					n := ReadU64(tx.Get("b", []byte("counter")))
					if err := tx.Put("b", []byte("counter"), U64(n+1)); err != nil {
						return err
					}
					if mine = tx.Get("claims", key) == nil; mine {
						return tx.Put("claims", key, []byte("x"))
					}
					return nil
				}); err != nil {
					t.Error(err)
					return
				}
				if mine {
					mu.Lock()
					created[string(key)]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	_ = nodes[1].View(func(tx *Tx) error {
		if got := ReadU64(tx.Get("b", []byte("counter"))); got != 2*writers*each {
			t.Errorf("counter %d, want %d: increments were lost", got, 2*writers*each)
		}
		return nil
	})
	for k, n := range created {
		if n != 1 {
			t.Errorf("key %s created by %d writers, want 1", k, n)
		}
	}
	if len(created) != writers*each {
		t.Errorf("%d keys created, want %d", len(created), writers*each)
	}
}
