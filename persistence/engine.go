package persistence

// The storage engines a Store runs on: bbolt, one file on the node (bolt.go, the
// default), or PostgreSQL, shared by several nodes (postgres.go). Store keeps what
// both share: one commit loop that groups every waiting Update, the
// acknowledgement only after the group is durable, and the typed records above the
// bytes (audit.go, blobs.go). An engine keeps the bytes.

// engine is one storage engine under a Store.
type engine interface {
	// commit runs fns in one durable transaction, in order, or in several in
	// order (PostgreSQL splits a group whose later function waits for a lock,
	// postgres.go), and returns how many transactions it committed. A function that
	// fails has its writes undone and its error put in errs at its index; the
	// others' writes commit. A non-nil return means nothing was committed (errs is
	// then meaningless). Functions may run more than once.
	commit(fns []func(*Tx) error, errs []error) (int, error)
	// view runs fn in a read-only transaction over one committed state.
	view(fn func(*Tx) error) error
	// get reads one record, committed, as a view of that one read would (a copy,
	// nil when absent), in the fewest round trips the engine allows.
	get(bucket string, key []byte) ([]byte, error)
	// shared reports whether other processes may commit to the same records (bbolt
	// locks its file; a PostgreSQL database may serve several nodes).
	shared() bool
	close() error
}

// txn is one engine's transaction under a Tx. Keys are ordered as bytes.
type txn interface {
	get(bucket string, key []byte) ([]byte, error)
	// prefetch makes the gets of reads that follow cheap: on PostgreSQL it reads
	// (and, in a write, locks) them in order in one round trip; bbolt reads locally
	// and does nothing.
	prefetch(reads []Read) error
	put(bucket string, key, value []byte) error
	delete(bucket string, key []byte) error
	// scan visits keys in [from, to) (to nil: no upper bound), ascending or, when
	// reverse, descending, until fn returns false.
	scan(bucket string, from, to []byte, reverse bool, fn func(k, v []byte) bool) error
	nextSequence(bucket string) (uint64, error)
	sequence(bucket string) (uint64, error)
}

// runSafely runs fn over tx, turning a panic into an error, and lets an engine
// failure inside the transaction take precedence over fn's own result.
func runSafely(fn func(*Tx) error, tx *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmtPanic(p)
		}
		if tx.err != nil {
			err = tx.err
		}
	}()
	return fn(tx)
}
