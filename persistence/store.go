// Package persistence is Folio's storage infrastructure on bbolt: group-committed
// transactions, keyed records as bytes, ordered indexes and the audit hash chain.
// It knows nothing of pages or tenants; the domain encodes its own records.
package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrClosed is returned by Update and View after Close.
var ErrClosed = errors.New("persistence: store is closed")

// errAbort rolls back a group transaction when one of its functions failed.
var errAbort = errors.New("persistence: batch aborted")

// Store is one bbolt file. Writes go through a single commit loop that packs every
// Update waiting at that moment into one bbolt transaction: one fsync acknowledges many
// commits, and none is acknowledged before its fsync returned.
type Store struct {
	db   *bolt.DB
	path string

	mu     sync.RWMutex // guards closed and sends on reqs
	closed bool
	reqs   chan *commitReq
	done   chan struct{}

	maxBatch int
	observe  func(batch int, took time.Duration)
}

type commitReq struct {
	fn   func(*Tx) error
	done chan error
}

// Options tune a Store. The zero value is durable and sensible.
type Options struct {
	// MaxBatch caps how many Update calls share one transaction (default 256).
	MaxBatch int
	// Observe, when set, is told the size and duration of every committed batch.
	Observe func(batch int, took time.Duration)
}

// The file is mapped and grown in large steps. Growing the map past its size makes
// the writer wait until every open read transaction has ended, stalls new ones
// meanwhile, and faults the whole file in again; growing the file costs a
// truncate and an fsync inside a commit. A map of 1 GiB (address space only, not
// memory) and 64 MiB file steps keep both rare under load.
const (
	initialMmap = 1 << 30
	allocSize   = 64 << 20
)

// Open opens (creating if needed) dir/folio.db.
func Open(dir string, opt Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("persistence: create data dir: %w", err)
	}
	path := filepath.Join(dir, "folio.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:         2 * time.Second,
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: initialMmap,
	})
	if err != nil {
		return nil, fmt.Errorf("persistence: open %s: %w", path, err)
	}
	db.AllocSize = allocSize
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 256
	}
	s := &Store{
		db:       db,
		path:     path,
		reqs:     make(chan *commitReq, 4096),
		done:     make(chan struct{}),
		maxBatch: opt.MaxBatch,
		observe:  opt.Observe,
	}
	go s.commitLoop()
	return s, nil
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.path }

// Update runs fn inside a write transaction and returns once that transaction is
// durably committed (or failed). fn may run more than once (when another function of
// the same group fails, the group is retried without it), so it must be a pure function
// of the transaction: no side effects outside it. An error from fn rolls back fn's
// writes only and is returned as is.
func (s *Store) Update(fn func(*Tx) error) error {
	req := &commitReq{fn: fn, done: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	s.reqs <- req
	s.mu.RUnlock()
	return <-req.done
}

// View runs fn in a read-only transaction over the latest committed state.
func (s *Store) View(fn func(*Tx) error) error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return s.db.View(func(btx *bolt.Tx) error { return fn(&Tx{btx: btx}) })
}

// Close waits for queued commits, then closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.reqs)
	s.mu.Unlock()
	<-s.done
	return s.db.Close()
}

// commitLoop is the single writer. Each turn takes every request already queued (up to
// maxBatch) and commits them together; there is no artificial delay, so a lone commit
// costs one fsync and a crowd shares one.
func (s *Store) commitLoop() {
	defer close(s.done)
	batch := make([]*commitReq, 0, s.maxBatch)
	for first := range s.reqs {
		batch = append(batch[:0], first)
	drain:
		for len(batch) < s.maxBatch {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commit(batch)
	}
}

// commit runs the group; a function that fails is answered with its error and the
// rest are retried in a fresh transaction, so one bad write never sinks the others.
func (s *Store) commit(batch []*commitReq) {
	for len(batch) > 0 {
		start := time.Now()
		failed, ferr := -1, error(nil)
		err := s.db.Update(func(btx *bolt.Tx) error {
			tx := &Tx{btx: btx}
			for i, r := range batch {
				if err := runSafely(r.fn, tx); err != nil {
					failed, ferr = i, err
					return errAbort
				}
			}
			return nil
		})
		if err == nil {
			if s.observe != nil {
				s.observe(len(batch), time.Since(start))
			}
			for _, r := range batch {
				r.done <- nil
			}
			// Each send above made a waiting writer runnable on this P's queue.
			// Yielding lets them answer their callers before this loop spends the
			// next commit's CPU and fsync holding the P: without it they waited out
			// another commit, and under load (most of all during a GC mark, when a
			// quarter of the CPU is the collector's) that wait was the latency tail
			// (bench/README.md).
			runtime.Gosched()
			return
		}
		if failed < 0 { // the commit itself failed (disk): nobody is acknowledged
			for _, r := range batch {
				r.done <- err
			}
			return
		}
		batch[failed].done <- ferr
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
}

// runSafely turns a panic inside a transaction function into an error for its caller.
func runSafely(fn func(*Tx) error, tx *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("persistence: transaction function panicked: %v", p)
		}
	}()
	return fn(tx)
}
