package persistence

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgEngine keeps the buckets in one PostgreSQL database: the hot records' in
// tables of their own (pg_tables.go), every other bucket as a row per key in kv,
// a row per bucket sequence in seq. bytea compares as bytes, so ordered scans see
// the keys in the order bbolt would, in kv and in every table (its primary key). Commits are synchronous (the server's
// synchronous_commit, on by default): an acknowledged Update is on the server's
// disk, and on a synchronous standby's when the server is configured for one.
type pgEngine struct {
	pool *pgxpool.Pool
	// retried, when set, is told of every re-run of a group, with its reason
	// (retryReason); set before the first commit, never changed.
	retried func(reason string)
	// routes are the buckets kept in tables of their own, by bucket: none on a
	// database at a schema version before schemaTables (a test writing as the
	// release before did), pgRouted otherwise.
	routes map[string]*pgSQL
	// laterWait is lock_timeout for a group's later functions (commit), as SQL.
	laterWait string
}

// DefaultPGLaterWait is how long a function after a group's first waits for a
// row lock before the group commits without it (commit), unless
// Options.PGLaterWait says otherwise. Groups take tenants' chain heads in one
// order (Store.UpdateOrdered), so such a wait is mostly another node's group
// finishing, not a cycle: 50 ms lets it finish (three nodes, 24 tenants: no
// "busy" left, against 1–3 % of commits at 5 ms; bench/README.md), and still
// breaks a cycle through page rows long before PostgreSQL's deadlock_timeout
// (1 s) would, which loses the whole group.
const DefaultPGLaterWait = 50 * time.Millisecond

// pgTimeout bounds one transaction: a database that stops answering fails the
// commits waiting on it instead of holding them for ever.
const pgTimeout = 30 * time.Second

// pgRetries is how many times a group that lost a race is run again before its
// callers get the serialization failure.
const pgRetries = 20

// A scan reads pgScanFirst rows with its first query, then four times as many
// with each next one up to pgScanPage: rows are read, the query closed, then fn
// runs over them, so fn may use the transaction itself.
const (
	pgScanFirst = 16
	pgScanPage  = 256
)

// pgIdleInTx bounds how long a transaction may sit idle on its connection.
const pgIdleInTx = 3 * time.Second

// pgMigrateLock is the advisory lock the migrations are run under.
const pgMigrateLock = 0x466f6c696f // "Folio"

// openPostgres opens the database at url, migrated up to schema version upTo
// (len(migrations) in service); laterWait is the lock wait of a group's later
// functions (at least a millisecond, lock_timeout's unit; 0 disables it there).
func openPostgres(url string, upTo int, laterWait time.Duration) (*pgEngine, error) {
	if laterWait < time.Millisecond {
		return nil, fmt.Errorf("persistence: the later functions' lock wait is %v, want at least 1ms", laterWait)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("persistence: %w", err)
	}
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	// A node that stalls (a pause, SIGSTOP) inside a transaction must not hold its
	// row locks, such as a tenant's chain head, for as long as it stalls: the
	// database ends such a transaction after pgIdleInTx, and the stalled node's
	// commit fails (it acknowledged nothing). Set in the URL to change it.
	if _, set := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.Itoa(int(pgIdleInTx / time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("persistence: %w", err)
	}
	version, err := migrate(ctx, pool, upTo)
	if err != nil {
		pool.Close()
		return nil, err
	}
	e := &pgEngine{pool: pool, laterWait: strconv.FormatInt(laterWait.Milliseconds(), 10) + "ms"}
	if version >= schemaTables {
		e.routes = pgRouted
	}
	return e, nil
}

// commit runs the group in one READ COMMITTED PostgreSQL transaction, each
// function inside a savepoint: a function that fails is rolled back to its
// savepoint and the others go on. Isolation comes from row locks, not from
// serializable snapshots (which re-ran two nodes' overlapping groups whole, issue
// 36): every record a write transaction reads is read with SELECT … FOR UPDATE
// and stays locked until the group commits, so a record read to be written back
// cannot change underneath (a page and its revision, a tenant's chain head, an
// aggregate); a sequence is moved with one UPSERT … RETURNING that locks its row;
// a record read as absent is then inserted with a plain INSERT, so of two
// transactions creating the same key the second fails on the primary key and its
// function alone is rolled back to its savepoint and run again, seeing the
// winner's row. What the locks do not cover is a range: a scan inside a write sees
// the rows committed when it starts and locks none (each call site states why that
// is enough, or takes a row lock that every writer of the range takes first).
//
// Deadlocks between nodes come from groups: a group's transaction holds the locks
// of every function it ran (a tenant's chain head, say) while a later function
// waits for a record another node's group holds, which waits for the chain head.
// So only a group's first function waits for a lock as long as it takes; the
// later ones wait at most laterWait (lock_timeout, Options.PGLaterWait). A later function that would
// wait longer is undone, the functions before it commit, and it runs first in
// the next transaction, with the rest of the group (counted as "busy"). A wait
// then never holds the locks of functions other than its own, and no cycle forms
// unless two functions lock the same records in opposite orders themselves. A
// deadlock that still happens, or a serialization failure, loses the whole
// transaction, which is run again whole, as "may run more than once" allows.
func (e *pgEngine) commit(fns []func(*Tx) error, errs []error) (int, error) {
	txns := 0
	for start := 0; start < len(fns); {
		n, err := e.commitRetrying(fns[start:], errs[start:])
		switch {
		case err != nil && start == 0:
			return 0, err
		case err != nil:
			// The functions before start are committed; the others are not, and
			// their callers are told to try again.
			for j := start; j < len(fns); j++ {
				errs[j] = unavailable{err}
			}
			return txns, nil
		}
		txns++
		if start += n; start < len(fns) {
			e.count("busy")
		}
	}
	return txns, nil
}

// commitRetrying commits a prefix of fns (at least one function), running the
// transaction again whole when it lost a race; it returns how many were committed.
func (e *pgEngine) commitRetrying(fns []func(*Tx) error, errs []error) (int, error) {
	for attempt := 0; ; attempt++ {
		clear(errs)
		n, err := e.commitOnce(fns, errs)
		if err == nil || !(retryable(err) || insertRace(err)) || attempt == pgRetries {
			return n, err
		}
		e.count(retryReason(err))
		// Racing nodes back off apart, a little longer each time.
		time.Sleep(rand.N(time.Millisecond << min(attempt, 6)))
	}
}

func (e *pgEngine) count(reason string) {
	if e.retried != nil {
		e.retried(reason)
	}
}

// commitOnce runs fns in one transaction until a function after the first would
// wait too long for a lock (lockBusy): that one is undone and the transaction
// commits those before it. It returns how many functions it committed.
func (e *pgEngine) commitOnce(fns []func(*Tx) error, errs []error) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	done := len(fns)
	err := pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(ptx pgx.Tx) error {
		t := newPgTx(ctx, ptx, true, e.routes)
		for i, fn := range fns {
			if i == 1 {
				if _, err := ptx.Exec(ctx, `SET LOCAL lock_timeout = '`+e.laterWait+`'`); err != nil {
					return err
				}
			}
			for try := 0; ; try++ {
				tx := &Tx{t: t}
				ferr := runSafely(fn, tx)
				engine := tx.err != nil // the database failed one of its statements
				if ferr == nil {
					ferr = t.flush(true) // the function's writes, and its savepoint released
					engine = ferr != nil
				}
				if ferr == nil {
					break
				}
				if i > 0 && lockBusy(ferr) {
					done = i
					return t.undo()
				}
				if (insertRace(ferr) || errors.Is(ferr, errReadRaced)) && try < pgRetries {
					// Another transaction committed a key this function read as
					// absent and then created: run it again from its savepoint; it
					// now reads that row.
					e.count("unique")
					if err := t.undo(); err != nil {
						return err
					}
					continue
				}
				if retryable(ferr) || insertRace(ferr) || errors.Is(ferr, errReadRaced) {
					return ferr // the transaction is lost: run the group again
				}
				// A statement the database failed (it went away, restarted, was
				// cancelled) is no answer about the function: its caller is told to
				// try again (ErrUnavailable, 503), never given the database's error
				// as the function's own (a 500). The function alone is undone, so one
				// that fails every time cannot keep the others of its group out.
				if engine && transient(ferr) {
					ferr = unavailable{ferr}
				}
				errs[i] = ferr
				if err := t.undo(); err != nil {
					return err
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return done, nil
}

// transient: the database did not carry a statement out because of its own state
// (the connection failed, the server is shutting down or starting up, out of
// resources, the statement cancelled), not because of what was asked: asking
// again may work. An error that is not the server's answer at all is the
// connection's.
func transient(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return true
	}
	switch pe.Code[:min(2, len(pe.Code))] {
	case "08", "53", "57", "58":
		return true
	}
	return false
}

// lockBusy: a lock wait ran past lock_timeout (lock_not_available).
func lockBusy(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}

// retryable: the transaction lost a race and may simply be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// insertRace: a key this transaction read as absent was created meanwhile by
// another (unique_violation on the primary key of kv, seq or a routed bucket's
// table, the only unique keys).
func insertRace(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// retryReason names why a retryable error lost its race: "serialization"
// (40001: not expected at read committed, kept for a server that raises it) or
// "deadlock" (40P01). A function run again after an insert race is "unique".
func retryReason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "40P01" {
		return "deadlock"
	}
	if insertRace(err) {
		return "unique"
	}
	return "serialization"
}

// pgViewBegin opens a view's transaction: repeatable read, so that its reads
// see one committed state, as a bbolt read transaction does.
const pgViewBegin = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`

// view reads in a repeatable-read, read-only transaction. Its BEGIN goes out
// with the view's first statement (pgTx.begin), not in a round trip of its own:
// most views read one or two records (a key, a page's revision), and a round
// trip is most of what such a read costs. A view that read nothing never began.
func (e *pgEngine) view(fn func(*Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("persistence: %w", err)
	}
	// A connection still in its transaction (the ROLLBACK failed) is closed by
	// Release, never handed to another caller.
	defer conn.Release()
	t := newPgTx(ctx, conn, false, e.routes)
	t.begin = pgViewBegin
	tx := &Tx{t: t}
	ferr := fn(tx)
	if t.begin == "" {
		_, _ = conn.Exec(ctx, `ROLLBACK`)
	}
	if tx.err != nil {
		return tx.err
	}
	return ferr
}

// get is one statement on a pooled connection, outside any transaction: a
// statement is its own snapshot, so one record read so is what a view of that
// one read would see, in one round trip instead of two.
func (e *pgEngine) get(bucket string, key []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	s := sqlOf(e.routes, bucket)
	var v []byte
	err := e.pool.QueryRow(ctx, s.get, s.args(bucket, key)...).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("persistence: %w", err)
	}
	return v, nil
}

func (e *pgEngine) shared() bool { return true }

func (e *pgEngine) close() error {
	e.pool.Close()
	return nil
}

// pgTx is one PostgreSQL transaction, with the writes of the function running in
// it held back until the function ends: then they go out with one round trip (a
// pipelined batch), and a function that fails has usually sent nothing to undo.
// Reads see the function's own writes first, then what the transaction read or
// committed before (cached: a group's functions read the same tenant and page
// records), then the database. A scan sends the held writes first, inside a
// savepoint, so the database has everything the scan must see.
//
// In a write transaction (write set) every read of a record locks its row
// (FOR UPDATE) and a sequence's first use locks its row, so what the cache holds
// cannot change until the commit. The first statement a function sends opens its
// savepoint f, pipelined with it: the locks, sequence moves and writes of a
// function that fails are all undone with it.
//
// Invariants: pending holds the running function's writes (a nil value is a
// delete) in the order made; cache holds only what is in the database as this
// transaction sees it (committed functions' writes and rows read), locked when
// write; absent holds the keys of cache read as missing and not written since,
// whose write must be an INSERT that fails if another transaction created the key
// meanwhile; seqs likewise for sequences (locked when write), pendingSeq for the
// running function's. saved is set while the running function is under savepoint f.
// begin, until sent, is a view's BEGIN, which goes out ahead of its first
// statement (open, or alone before a scan); no statement of the view goes out
// before it.
type pgTx struct {
	ctx        context.Context
	tx         pgQuerier
	begin      string
	write      bool
	pending    map[string]pgWrite
	order      []string
	cache      map[string][]byte // nil value: absent
	absent     map[string]bool
	seqs       map[string]uint64
	pendingSeq map[string]uint64
	saved      bool
	routes     map[string]*pgSQL // the engine's
}

type pgWrite struct {
	bucket string
	key    []byte
	value  []byte // nil: delete
}

// pgQuerier is what a pgTx sends its statements through: a write's pgx.Tx, or a
// view's connection, whose transaction the view's first statement begins.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

func newPgTx(ctx context.Context, tx pgQuerier, write bool, routes map[string]*pgSQL) *pgTx {
	return &pgTx{ctx: ctx, tx: tx, write: write, pending: map[string]pgWrite{}, cache: map[string][]byte{},
		absent: map[string]bool{}, seqs: map[string]uint64{}, pendingSeq: map[string]uint64{}, routes: routes}
}

// sql is the bucket's statements: its table's, or kv's.
func (t *pgTx) sql(bucket string) *pgSQL { return sqlOf(t.routes, bucket) }

// sqlOf is bucket's statements: its table's when routes has it, else kv's.
func sqlOf(routes map[string]*pgSQL, bucket string) *pgSQL {
	if s, ok := routes[bucket]; ok {
		return s
	}
	return kvSQL
}

// open queues ahead of b's statements a view's BEGIN, unless sent, or the running
// function's savepoint, unless it is open already; it reports whether it queued
// one (its result comes first).
func (t *pgTx) open(b *pgx.Batch) bool {
	if t.begin != "" {
		b.Queue(t.begin)
		t.begin = ""
		return true
	}
	if t.saved || !t.write {
		return false
	}
	b.Queue(`SAVEPOINT f`)
	t.saved = true
	return true
}

// begun sends a view's BEGIN alone, unless it went out already: before a
// statement that is not sent in a batch (a scan's query).
func (t *pgTx) begun() error {
	if t.begin == "" {
		return nil
	}
	q := t.begin
	t.begin = ""
	_, err := t.tx.Exec(t.ctx, q)
	return err
}

// send sends b (a BEGIN or savepoint first when opened) and reads its result,
// leaving the queries' results to the caller, who closes them. A savepoint that
// did not open is undone in t, so the function's undo does not roll back to it.
func (t *pgTx) send(b *pgx.Batch, opened bool) (pgx.BatchResults, error) {
	br := t.tx.SendBatch(t.ctx, b)
	if opened {
		if _, err := br.Exec(); err != nil {
			t.saved = false
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// row sends b (a savepoint maybe, then one query) and scans the query's one row.
func (t *pgTx) row(b *pgx.Batch, opened bool, dest ...any) error {
	br, err := t.send(b, opened)
	if err != nil {
		return err
	}
	err = br.QueryRow().Scan(dest...)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

func cacheKey(bucket string, key []byte) string { return bucket + "\x00" + string(key) }

// The limits bbolt puts on a write, kept here so that a write either engine
// would refuse fails at once, the same way.
const (
	maxKeySize   = 32768
	maxValueSize = (1 << 31) - 2
)

func (t *pgTx) get(bucket string, key []byte) ([]byte, error) {
	ck := cacheKey(bucket, key)
	if w, ok := t.pending[ck]; ok {
		return clone(w.value), nil
	}
	if v, ok := t.cache[ck]; ok {
		return clone(v), nil
	}
	s := t.sql(bucket)
	q := s.get
	if t.write {
		q = s.getLock
	}
	b := &pgx.Batch{}
	opened := t.open(b)
	b.Queue(q, s.args(bucket, key)...)
	var v []byte
	err := t.row(b, opened, &v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		t.cache[ck] = nil
		if t.write {
			t.absent[ck] = true
		}
		return nil, nil
	case err != nil:
		return nil, err
	}
	if v == nil {
		v = []byte{}
	}
	t.cache[ck] = v
	return clone(v), nil
}

// prefetch reads the records of reads not yet known to the transaction as get
// would (locked in a write, in order; absent ones marked), pipelined in one batch
// behind the function's savepoint, so the gets that follow are cache hits.
func (t *pgTx) prefetch(reads []Read) error {
	var send []Read
	seen := map[string]bool{}
	for _, r := range reads {
		ck := cacheKey(r.Bucket, r.Key)
		if _, ok := t.pending[ck]; ok || seen[ck] {
			continue
		}
		if _, ok := t.cache[ck]; ok {
			continue
		}
		seen[ck] = true
		send = append(send, r)
	}
	if len(send) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	opened := t.open(b)
	for _, r := range send {
		s := t.sql(r.Bucket)
		q := s.get
		if t.write {
			q = s.getLock
		}
		b.Queue(q, s.args(r.Bucket, r.Key)...)
	}
	br, err := t.send(b, opened)
	if err != nil {
		return err
	}
	for _, r := range send {
		ck := cacheKey(r.Bucket, r.Key)
		var v []byte
		err := br.QueryRow().Scan(&v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			t.cache[ck] = nil
			if t.write {
				t.absent[ck] = true
			}
		case err != nil:
			_ = br.Close()
			return err
		default:
			if v == nil {
				v = []byte{}
			}
			t.cache[ck] = v
		}
	}
	return br.Close()
}

func clone(v []byte) []byte {
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

// errViewWrite is a write in a view, which bbolt refuses too (its read
// transactions are not writable): a view never sends one.
var errViewWrite = errors.New("persistence: a view does not write")

func (t *pgTx) put(bucket string, key, value []byte) error {
	switch {
	case !t.write:
		return errViewWrite
	case len(key) == 0:
		return errors.New("persistence: key required")
	case len(key) > maxKeySize:
		return errors.New("persistence: key too large")
	case len(value) > maxValueSize:
		return errors.New("persistence: value too large")
	}
	t.hold(bucket, key, append([]byte{}, value...))
	return nil
}

func (t *pgTx) delete(bucket string, key []byte) error {
	if !t.write {
		return errViewWrite
	}
	t.hold(bucket, key, nil)
	return nil
}

func (t *pgTx) hold(bucket string, key, value []byte) {
	ck := cacheKey(bucket, key)
	if _, ok := t.pending[ck]; !ok {
		t.order = append(t.order, ck)
	}
	t.pending[ck] = pgWrite{bucket: bucket, key: append([]byte(nil), key...), value: value}
}

// flush sends the held writes and sequences; release also ends the function's
// savepoint (its writes are then the transaction's). One round trip.
func (t *pgTx) flush(release bool) error {
	if len(t.order) == 0 && len(t.pendingSeq) == 0 && !(release && t.saved) {
		return nil
	}
	// Always under the savepoint, pipelined with the writes (no extra round trip):
	// a write the database refuses then fails its function alone (undo).
	b := &pgx.Batch{}
	if !t.saved {
		b.Queue(`SAVEPOINT f`)
		t.saved = true
	}
	for _, ck := range t.order {
		w := t.pending[ck]
		s := t.sql(w.bucket)
		switch {
		case w.value == nil:
			b.Queue(s.del, s.args(w.bucket, w.key)...)
		case t.absent[ck]:
			// Read as absent: created here, or, if another transaction created it
			// since, a unique violation that runs the function again (commitOnce).
			b.Queue(s.insert, s.args(w.bucket, w.key, s.row(w.key, w.value)...)...)
		default:
			b.Queue(s.upsert, s.args(w.bucket, w.key, s.row(w.key, w.value)...)...)
		}
	}
	for bucket, n := range t.pendingSeq {
		// The row exists and is this transaction's: its first use locked it.
		b.Queue(`UPDATE seq SET value = $2 WHERE bucket = $1`, bucket, int64(n))
	}
	if release {
		b.Queue(`RELEASE SAVEPOINT f`)
	}
	if err := t.tx.SendBatch(t.ctx, b).Close(); err != nil {
		return err
	}
	for _, ck := range t.order {
		t.cache[ck] = t.pending[ck].value
		if t.pending[ck].value != nil {
			delete(t.absent, ck)
		}
	}
	for bucket, n := range t.pendingSeq {
		t.seqs[bucket] = n
	}
	clear(t.pending)
	clear(t.pendingSeq)
	t.order = t.order[:0]
	if release {
		t.saved = false
	}
	return nil
}

// undo drops what the failed function wrote: the held writes, and what it sent
// under its savepoint. What the cache learnt since the savepoint may be undone
// with it, so the cache starts again.
func (t *pgTx) undo() error {
	clear(t.pending)
	clear(t.pendingSeq)
	t.order = t.order[:0]
	if !t.saved {
		return nil
	}
	t.saved = false
	clear(t.cache)
	clear(t.absent)
	clear(t.seqs)
	// One simple-protocol query: after an error the transaction refuses to
	// prepare statements (as a batch would) until the rollback.
	_, err := t.tx.Exec(t.ctx, `ROLLBACK TO SAVEPOINT f; RELEASE SAVEPOINT f`)
	return err
}

func (t *pgTx) scan(bucket string, from, to []byte, reverse bool, fn func(k, v []byte) bool) error {
	if err := t.flush(false); err != nil {
		return err
	}
	if err := t.begun(); err != nil {
		return err
	}
	type row struct{ k, v []byte }
	page := make([]row, 0, pgScanFirst)
	lo, hi := from, to // the range still to read: [lo, hi), hi nil for no bound
	if lo == nil {
		lo = []byte{} // a nil slice would be SQL NULL
	}
	// The first page is small: most scans want the first key or few (the oldest
	// entry of a window, a newest-first page), and with serializable
	// transactions every row read is also locked. Pages grow up to pgScanPage.
	limit := pgScanFirst
	s := t.sql(bucket) // a routed bucket's scan follows its table's primary key
	for {
		var q string
		args := s.args(bucket, lo, limit)
		switch {
		case !reverse && hi == nil:
			q = s.scanFrom
		case !reverse:
			q = s.scanFromTo
			args = append(args, hi)
		case hi == nil:
			q = s.scanFromDesc
		default:
			q = s.scanToDesc
			args = append(args, hi)
		}
		rows, err := t.tx.Query(t.ctx, q, args...)
		if err != nil {
			return err
		}
		page = page[:0]
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.k, &r.v); err != nil {
				rows.Close()
				return err
			}
			page = append(page, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range page {
			// A write the callback made to a key this scan has yet to reach is held,
			// not sent: the row as read stands in for it, as a bbolt cursor over a
			// page not yet modified would show it.
			if !fn(r.k, r.v) {
				return nil
			}
		}
		if len(page) < limit {
			return nil
		}
		limit = min(limit*4, pgScanPage)
		last := page[len(page)-1].k
		if reverse {
			hi = last // the next page: below the last key read
		} else {
			lo = append(append([]byte(nil), last...), 0) // the next page: after it
		}
	}
}

// loadSeq is the bucket's sequence as this transaction sees it. In a write
// transaction its row is locked first (created at 0 if missing, which reads as a
// sequence never moved), so the value cannot move until the commit: two nodes
// taking numbers from one sequence wait for each other instead of one being
// re-run.
func (t *pgTx) loadSeq(bucket string) (uint64, error) {
	if n, ok := t.pendingSeq[bucket]; ok {
		return n, nil
	}
	if n, ok := t.seqs[bucket]; ok {
		return n, nil
	}
	var n int64
	b := &pgx.Batch{}
	opened := t.open(b)
	if t.write {
		b.Queue(`INSERT INTO seq (bucket, value) VALUES ($1, 0)
			ON CONFLICT (bucket) DO UPDATE SET value = seq.value RETURNING value`, bucket)
	} else {
		b.Queue(`SELECT value FROM seq WHERE bucket = $1`, bucket)
	}
	err := t.row(b, opened, &n)
	if errors.Is(err, pgx.ErrNoRows) {
		n, err = 0, nil
	}
	if err != nil {
		return 0, err
	}
	t.seqs[bucket] = uint64(n)
	return uint64(n), nil
}

// nextSequence moves the sequence: at its first use in a write transaction with
// one UPSERT … RETURNING that both locks the row and takes the number, after that
// in the transaction alone (the row is locked), written back with the function.
func (t *pgTx) nextSequence(bucket string) (uint64, error) {
	_, held := t.pendingSeq[bucket]
	_, seen := t.seqs[bucket]
	if t.write && !held && !seen {
		var n int64
		b := &pgx.Batch{}
		opened := t.open(b)
		b.Queue(`INSERT INTO seq (bucket, value) VALUES ($1, 1)
			ON CONFLICT (bucket) DO UPDATE SET value = seq.value + 1 RETURNING value`, bucket)
		if err := t.row(b, opened, &n); err != nil {
			return 0, err
		}
		t.seqs[bucket] = uint64(n) // in the database, under the savepoint
		return uint64(n), nil
	}
	n, err := t.loadSeq(bucket)
	if err != nil {
		return 0, err
	}
	t.pendingSeq[bucket] = n + 1
	return n + 1, nil
}

func (t *pgTx) sequence(bucket string) (uint64, error) { return t.loadSeq(bucket) }
