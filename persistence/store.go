// Package persistence is Folio's storage infrastructure: group-committed
// transactions, keyed records as bytes, ordered indexes and the audit hash chain,
// on bbolt (one node, the default) or PostgreSQL (several nodes sharing one
// store). It knows nothing of pages or tenants; the domain encodes its own records.
package persistence

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by Update and View after Close.
var ErrClosed = errors.New("persistence: store is closed")

// ErrUnavailable marks a read the store could not serve (the engine failed: a
// PostgreSQL server restarting, a dropped connection, a timeout, a closed store). It
// says nothing about the record: the caller must not take it as "absent", and a
// request that needed the read is answered 503 "try again". A record that is absent
// is a read that returns no error and no value.
var ErrUnavailable = errors.New("persistence: the store did not answer")

// unavailable is an engine failure under a View: errors.Is(err, ErrUnavailable) and
// errors.Is(err, cause) both hold.
type unavailable struct{ cause error }

func (u unavailable) Error() string {
	return "persistence: the store did not answer: " + u.cause.Error()
}
func (u unavailable) Unwrap() []error { return []error{ErrUnavailable, u.cause} }

// Store is Folio's storage on one engine (engine.go). Writes go through a commit
// loop that packs every Update waiting at that moment into one transaction: one
// fsync (or one PostgreSQL commit) acknowledges many, and none is acknowledged
// before it is durable. bbolt has one loop (one writer). A shared engine has a
// loop per lane (Options.CommitLanes): an UpdateOrdered key (a workspace) always
// goes to the same lane, so its commits keep their order, and the lanes' groups,
// holding different workspaces' rows, commit side by side on PostgreSQL instead
// of one waiting for the other's round trips.
type Store struct {
	eng engine

	mu     sync.RWMutex // guards closed and sends on lanes
	closed bool
	lanes  []chan *commitReq // lanes[laneOf(key)] takes the key's requests
	done   chan struct{}

	maxBatch  int
	observe   func(batch, transactions int, took time.Duration)
	readFault func() error
	noTree    bool // Options.NoAuditTree
}

type commitReq struct {
	key  string // UpdateOrdered's lock key ("" for Update)
	fn   func(*Tx) error
	done chan error
}

// Options tune a Store. The zero value is durable and sensible.
type Options struct {
	// MaxBatch caps how many Update calls share one transaction (default 256).
	MaxBatch int
	// CommitLanes is how many groups a store on a shared engine (PostgreSQL)
	// commits at once, each with the keys of its own lane (0:
	// DefaultCommitLanes). bbolt has one writer: always one lane.
	CommitLanes int
	// Observe, when set, is told the size and duration of every committed batch
	// (group), and how many transactions committed it: one on bbolt, more on
	// PostgreSQL when the group was split ("busy", Retried).
	Observe func(batch, transactions int, took time.Duration)
	// Retried, when set, is told of every re-run after a race lost on a shared
	// store (PostgreSQL), with the reason: "deadlock" (SQLSTATE 40P01, the group
	// run again whole), "unique" (23505: a key the function read as absent was
	// created meanwhile; the function run again), "busy" (a function after the
	// first of its group waited for a row lock another node held: the functions
	// before it committed, it runs first in the next transaction) or
	// "serialization" (40001). bbolt
	// never re-runs.
	Retried func(reason string)
	// ReadFault, when set, is asked before every View and Get; an error it returns fails
	// the read as an engine failure would (ErrUnavailable). Tests use it to make
	// reads fail on demand; it is nil in service.
	ReadFault func() error
	// NoAuditTree leaves the audit chains without their Merkle trees (audit_tree.go):
	// for benchmarks that measure what the tree costs, never in service (a chain
	// appended without its tree is caught up later, catchUp leaves at a time).
	NoAuditTree bool
	// PGLaterWait is how long, on PostgreSQL, a function after the first of its
	// group waits for a row lock another transaction holds before the group
	// commits the functions before it and runs it first in the next transaction
	// ("busy"); 0: DefaultPGLaterWait. At least a millisecond.
	PGLaterWait time.Duration
}

// Open opens (creating if needed) the bbolt store dir/folio.db.
func Open(dir string, opt Options) (*Store, error) {
	e, err := openBolt(dir)
	if err != nil {
		return nil, err
	}
	return newStore(e, opt), nil
}

// OpenURL opens the store a URL names: bolt://DIR (DIR/folio.db; the empty URL
// is bolt:// in dataDir), or postgres://… (postgresql://… too), a database
// several nodes may share.
func OpenURL(url, dataDir string, opt Options) (*Store, error) {
	switch {
	case url == "":
		return Open(dataDir, opt)
	case strings.HasPrefix(url, "bolt://"):
		dir := strings.TrimPrefix(url, "bolt://")
		if dir == "" {
			dir = dataDir
		}
		return Open(dir, opt)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		wait := opt.PGLaterWait
		if wait == 0 {
			wait = DefaultPGLaterWait
		}
		e, err := openPostgres(url, len(migrations), wait)
		if err != nil {
			return nil, err
		}
		e.retried = opt.Retried
		return newStore(e, opt), nil
	}
	return nil, fmt.Errorf("persistence: unknown store %q: want bolt://DIR or postgres://…", url)
}

func newStore(e engine, opt Options) *Store {
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 256
	}
	lanes := 1
	if e.shared() {
		lanes = opt.CommitLanes
		if lanes <= 0 {
			lanes = DefaultCommitLanes
		}
	}
	s := &Store{
		eng:       e,
		done:      make(chan struct{}),
		maxBatch:  opt.MaxBatch,
		observe:   opt.Observe,
		readFault: opt.ReadFault,
		noTree:    opt.NoAuditTree,
	}
	var loops sync.WaitGroup
	for range lanes {
		lane := make(chan *commitReq, 4096)
		s.lanes = append(s.lanes, lane)
		loops.Go(func() { s.commitLoop(lane) })
	}
	go func() { loops.Wait(); close(s.done) }()
	return s
}

// DefaultCommitLanes is the number of commit lanes on a shared engine. Measured on
// two cores (bench/README.md): one PostgreSQL node publishing for 24 workspaces
// commits half as much again with 3 or 4 lanes as with one, whose transaction
// left PostgreSQL idle during the node's work and the node idle during
// PostgreSQL's.
const DefaultCommitLanes = 4

// laneOf is the lane of key: a pure function of the key (its FNV-1a hash,
// computed in place: every write asks, and a hash.Hash would be an allocation
// each time), so that one key's requests queue in one lane, in order.
func (s *Store) laneOf(key string) chan *commitReq {
	if len(s.lanes) == 1 {
		return s.lanes[0]
	}
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return s.lanes[h%uint32(len(s.lanes))]
}

// Update runs fn inside a write transaction and returns once that transaction is
// durably committed (or failed). fn may run more than once (when another function of
// the same group fails, the group is retried without it, and PostgreSQL may retry a
// transaction that lost a race), so it must be a pure function of the transaction:
// no side effects outside it. An error from fn rolls back fn's writes only and is
// returned as is; a group the engine could not commit at all (a store that does not
// answer, a race lost more often than retried) is ErrUnavailable: nothing was
// written, and the caller is told to try again (503), never that it failed for good.
func (s *Store) Update(fn func(*Tx) error) error { return s.UpdateOrdered("", fn) }

// UpdateOrdered is Update for a function whose first contended lock is the row
// key names (a tenant's audit chain head: its id). A group runs its functions in
// ascending order of key (Update's "" first, equal keys as queued), so on
// PostgreSQL every node's groups take the rows of different keys in one global
// order and never wait on each other in a cycle for them (issue 36). The order is
// free to choose: the functions of one group were queued concurrently, none
// acknowledged before the others were queued.
func (s *Store) UpdateOrdered(key string, fn func(*Tx) error) error {
	if s.noTree {
		inner := fn
		fn = func(tx *Tx) error { tx.noTree = true; return inner(tx) }
	}
	req := &commitReq{key: key, fn: fn, done: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	s.laneOf(key) <- req
	s.mu.RUnlock()
	return <-req.done
}

// View runs fn in a read-only transaction over the latest committed state. fn's
// own error is returned as is; a failure of the store itself (fn never ran, or a
// read inside it failed) is ErrUnavailable, so a caller can tell "the read failed"
// from "the record is absent" (no error, no value).
func (s *Store) View(fn func(*Tx) error) error {
	var fnErr error
	err := s.read(func() error {
		err := s.eng.view(func(tx *Tx) error {
			fnErr = fn(tx)
			return fnErr
		})
		if err != nil && err == fnErr {
			return nil // fn's own error: returned as is, below
		}
		return err
	})
	if err != nil {
		return err
	}
	return fnErr
}

// Get reads the one record at key as View would (a copy; nil, nil when absent;
// ErrUnavailable when the store failed), for a caller that needs that record
// alone: on PostgreSQL it is one statement, which is a snapshot of its own, where
// a view of one read costs a BEGIN with it and a ROLLBACK after (a round trip of
// its own). A caller that reads two records together uses View.
func (s *Store) Get(bucket string, key []byte) ([]byte, error) {
	var v []byte
	err := s.read(func() (err error) {
		v, err = s.eng.get(bucket, key)
		return err
	})
	return v, err
}

// read runs one engine read under View's rules: refused once the store is
// closed or while the read fault is set, its failure ErrUnavailable.
func (s *Store) read(fn func() error) error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return unavailable{ErrClosed}
	}
	if s.readFault != nil {
		if err := s.readFault(); err != nil {
			return unavailable{err}
		}
	}
	if err := fn(); err != nil {
		return unavailable{err}
	}
	return nil
}

// Shared reports whether other nodes may commit to this store. A record kept in
// memory (a page actor's state) must then be checked against the stored revision
// before it is used; on a store of one node's own (bbolt) nothing else writes.
func (s *Store) Shared() bool { return s.eng.shared() }

// Close waits for queued commits, then closes the engine.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, lane := range s.lanes {
		close(lane)
	}
	s.mu.Unlock()
	<-s.done
	return s.eng.close()
}

// commitLoop is one lane's writer. Each turn takes every request already queued in
// its lane (up to maxBatch) and commits them together; there is no artificial
// delay, so a lone commit costs one fsync and a crowd shares one.
func (s *Store) commitLoop(reqs chan *commitReq) {
	batch := make([]*commitReq, 0, s.maxBatch)
	fns := make([]func(*Tx) error, 0, s.maxBatch)
	errs := make([]error, s.maxBatch)
	for first := range reqs {
		batch = append(batch[:0], first)
	drain:
		for len(batch) < s.maxBatch {
			select {
			case r, ok := <-reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		slices.SortStableFunc(batch, func(a, b *commitReq) int { return strings.Compare(a.key, b.key) })
		fns = fns[:0]
		for _, r := range batch {
			fns = append(fns, r.fn)
		}
		clear(errs)
		start := time.Now()
		txns, err := s.eng.commit(fns, errs[:len(batch)])
		if err == nil && s.observe != nil {
			s.observe(len(batch), txns, time.Since(start))
		}
		for i, r := range batch {
			if err != nil { // nothing was committed: nobody is acknowledged, all may try again
				r.done <- unavailable{err}
			} else {
				r.done <- errs[i]
			}
		}
		clear(fns)
		// Each send above made a waiting writer runnable on this P's queue.
		// Yielding lets them answer their callers before this loop spends the next
		// commit's CPU and fsync holding the P: without it they waited out another
		// commit, and under load (most of all during a GC mark, when a quarter of
		// the CPU is the collector's) that wait was the latency tail
		// (bench/README.md).
		runtime.Gosched()
	}
}

// fmtPanic is the error a panicking transaction function returns.
func fmtPanic(p any) error {
	return fmt.Errorf("persistence: transaction function panicked: %v", p)
}
