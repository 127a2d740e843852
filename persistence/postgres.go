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

// pgEngine keeps the buckets in one PostgreSQL database: a row per key in kv, a
// row per bucket sequence in seq. bytea compares as bytes, so ordered scans see
// the keys in the order bbolt would. Commits are synchronous (the server's
// synchronous_commit, on by default): an acknowledged Update is on the server's
// disk, and on a synchronous standby's when the server is configured for one.
type pgEngine struct {
	pool *pgxpool.Pool
	// retried, when set, is told of every re-run of a group, with its reason
	// (retryReason); set before the first commit, never changed.
	retried func(reason string)
}

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

// migrations are the schema's versions, in order; a database records the last it
// ran in folio_schema, and a starting node runs the rest under an advisory lock,
// so nodes starting together migrate once.
var migrations = []string{
	`CREATE TABLE kv (bucket text NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (bucket, key));
	 CREATE TABLE seq (bucket text PRIMARY KEY, value bigint NOT NULL)`,
}

// pgIdleInTx bounds how long a transaction may sit idle on its connection.
const pgIdleInTx = 3 * time.Second

// pgMigrateLock is the advisory lock the migrations are run under.
const pgMigrateLock = 0x466f6c696f // "Folio"

func openPostgres(url string) (*pgEngine, error) {
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
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &pgEngine{pool: pool}, nil
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, pgMigrateLock); err != nil {
			return fmt.Errorf("persistence: migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS folio_schema (version int NOT NULL)`); err != nil {
			return fmt.Errorf("persistence: migrate: %w", err)
		}
		var version int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM folio_schema`).Scan(&version); err != nil {
			return fmt.Errorf("persistence: migrate: %w", err)
		}
		if version > len(migrations) {
			return fmt.Errorf("persistence: the database is at schema version %d, newer than this binary's %d", version, len(migrations))
		}
		for v := version; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("persistence: migration %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO folio_schema (version) VALUES ($1)`, v+1); err != nil {
				return fmt.Errorf("persistence: migration %d: %w", v+1, err)
			}
		}
		return nil
	})
}

// commit runs the group in one serializable PostgreSQL transaction, each function
// inside a savepoint: a function that fails is rolled back to its savepoint and
// the others go on. Serializable because the records are read and written as
// keys: two nodes committing against the same record (a page, a tenant's audit
// chain head, a sequence) must behave as if one ran after the other, never both
// on the same read. The transaction that lost such a race (serialization failure,
// deadlock) is run again whole, which the "may run more than once" rule allows.
func (e *pgEngine) commit(fns []func(*Tx) error, errs []error) error {
	for attempt := 0; ; attempt++ {
		clear(errs)
		err := e.commitOnce(fns, errs)
		if err == nil || !retryable(err) || attempt == pgRetries {
			return err
		}
		if e.retried != nil {
			e.retried(retryReason(err))
		}
		// Racing nodes back off apart, a little longer each time.
		time.Sleep(rand.N(time.Millisecond << min(attempt, 6)))
	}
}

func (e *pgEngine) commitOnce(fns []func(*Tx) error, errs []error) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	return pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(ptx pgx.Tx) error {
		t := newPgTx(ctx, ptx)
		for i, fn := range fns {
			tx := &Tx{t: t}
			ferr := runSafely(fn, tx)
			if ferr == nil {
				ferr = t.flush(true) // the function's writes, and its savepoint released
			}
			if ferr != nil && retryable(ferr) {
				return ferr // the transaction is lost: run the group again
			}
			if ferr != nil {
				errs[i] = ferr
				if err := t.undo(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// retryable: the transaction lost a race and may simply be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// retryReason names why a retryable error lost its race: "serialization"
// (40001: a concurrent update, or a read/write dependency under serializable
// isolation) or "deadlock" (40P01).
func retryReason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "40P01" {
		return "deadlock"
	}
	return "serialization"
}

// view reads in a repeatable-read, read-only transaction: one committed state,
// as a bbolt read transaction sees.
func (e *pgEngine) view(fn func(*Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	ptx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("persistence: %w", err)
	}
	defer func() { _ = ptx.Rollback(ctx) }()
	tx := &Tx{t: newPgTx(ctx, ptx)}
	ferr := fn(tx)
	if tx.err != nil {
		return tx.err
	}
	return ferr
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
// Invariants: pending holds the running function's writes (a nil value is a
// delete) in the order made; cache holds only what is in the database as this
// transaction sees it (committed functions' writes and rows read); seqs likewise
// for sequences, pendingSeq for the running function's. saved is set while the
// running function has sent writes under savepoint f.
type pgTx struct {
	ctx        context.Context
	tx         pgx.Tx
	pending    map[string]pgWrite
	order      []string
	cache      map[string][]byte // nil value: absent
	seqs       map[string]uint64
	pendingSeq map[string]uint64
	saved      bool
}

type pgWrite struct {
	bucket string
	key    []byte
	value  []byte // nil: delete
}

func newPgTx(ctx context.Context, tx pgx.Tx) *pgTx {
	return &pgTx{ctx: ctx, tx: tx, pending: map[string]pgWrite{}, cache: map[string][]byte{},
		seqs: map[string]uint64{}, pendingSeq: map[string]uint64{}}
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
	var v []byte
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM kv WHERE bucket = $1 AND key = $2`, bucket, key).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		t.cache[ck] = nil
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

func clone(v []byte) []byte {
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

func (t *pgTx) put(bucket string, key, value []byte) error {
	switch {
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
		if w.value == nil {
			b.Queue(`DELETE FROM kv WHERE bucket = $1 AND key = $2`, w.bucket, w.key)
		} else {
			b.Queue(`INSERT INTO kv (bucket, key, value) VALUES ($1, $2, $3)
				ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, w.bucket, w.key, w.value)
		}
	}
	for bucket, n := range t.pendingSeq {
		b.Queue(`INSERT INTO seq (bucket, value) VALUES ($1, $2)
			ON CONFLICT (bucket) DO UPDATE SET value = excluded.value`, bucket, int64(n))
	}
	if release {
		b.Queue(`RELEASE SAVEPOINT f`)
	}
	if err := t.tx.SendBatch(t.ctx, b).Close(); err != nil {
		return err
	}
	for _, ck := range t.order {
		t.cache[ck] = t.pending[ck].value
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
	clear(t.seqs)
	b := &pgx.Batch{}
	b.Queue(`ROLLBACK TO SAVEPOINT f`)
	b.Queue(`RELEASE SAVEPOINT f`)
	return t.tx.SendBatch(t.ctx, b).Close()
}

func (t *pgTx) scan(bucket string, from, to []byte, reverse bool, fn func(k, v []byte) bool) error {
	if err := t.flush(false); err != nil {
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
	for {
		var q string
		args := []any{bucket, lo, limit}
		switch {
		case !reverse && hi == nil:
			q = `SELECT key, value FROM kv WHERE bucket = $1 AND key >= $2 ORDER BY key LIMIT $3`
		case !reverse:
			q = `SELECT key, value FROM kv WHERE bucket = $1 AND key >= $2 AND key < $4 ORDER BY key LIMIT $3`
			args = append(args, hi)
		case hi == nil:
			q = `SELECT key, value FROM kv WHERE bucket = $1 AND key >= $2 ORDER BY key DESC LIMIT $3`
		default:
			q = `SELECT key, value FROM kv WHERE bucket = $1 AND key >= $2 AND key < $4 ORDER BY key DESC LIMIT $3`
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

func (t *pgTx) loadSeq(bucket string) (uint64, error) {
	if n, ok := t.pendingSeq[bucket]; ok {
		return n, nil
	}
	if n, ok := t.seqs[bucket]; ok {
		return n, nil
	}
	var n int64
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM seq WHERE bucket = $1`, bucket).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		n, err = 0, nil
	}
	if err != nil {
		return 0, err
	}
	t.seqs[bucket] = uint64(n)
	return uint64(n), nil
}

func (t *pgTx) nextSequence(bucket string) (uint64, error) {
	n, err := t.loadSeq(bucket)
	if err != nil {
		return 0, err
	}
	t.pendingSeq[bucket] = n + 1
	return n + 1, nil
}

func (t *pgTx) sequence(bucket string) (uint64, error) { return t.loadSeq(bucket) }
