package persistence

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
}

// pgTimeout bounds one transaction: a database that stops answering fails the
// commits waiting on it instead of holding them for ever.
const pgTimeout = 30 * time.Second

// pgRetries is how many times a group that lost a race is run again before its
// callers get the serialization failure.
const pgRetries = 20

// pgScanPage is how many rows a scan reads per query: rows are read, the query
// closed, then fn runs over them, so fn may use the transaction itself.
const pgScanPage = 256

// migrations are the schema's versions, in order; a database records the last it
// ran in folio_schema, and a starting node runs the rest under an advisory lock,
// so nodes starting together migrate once.
var migrations = []string{
	`CREATE TABLE kv (bucket text NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (bucket, key));
	 CREATE TABLE seq (bucket text PRIMARY KEY, value bigint NOT NULL)`,
}

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
		// Racing nodes back off apart, a little longer each time.
		time.Sleep(rand.N(time.Millisecond << min(attempt, 6)))
	}
}

func (e *pgEngine) commitOnce(fns []func(*Tx) error, errs []error) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	return pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(ptx pgx.Tx) error {
		t := &pgTx{ctx: ctx, tx: ptx}
		for i, fn := range fns {
			if _, err := ptx.Exec(ctx, `SAVEPOINT f`); err != nil {
				return err
			}
			tx := &Tx{t: t}
			ferr := runSafely(fn, tx)
			if tx.err != nil && retryable(tx.err) {
				return tx.err // the transaction is lost: run the group again
			}
			if ferr != nil {
				errs[i] = ferr
				if _, err := ptx.Exec(ctx, `ROLLBACK TO SAVEPOINT f`); err != nil {
					return err
				}
			}
			if _, err := ptx.Exec(ctx, `RELEASE SAVEPOINT f`); err != nil {
				return err
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
	tx := &Tx{t: &pgTx{ctx: ctx, tx: ptx}}
	ferr := fn(tx)
	if tx.err != nil {
		return tx.err
	}
	return ferr
}

func (e *pgEngine) close() error {
	e.pool.Close()
	return nil
}

// pgTx is one PostgreSQL transaction.
type pgTx struct {
	ctx context.Context
	tx  pgx.Tx
}

func (t *pgTx) get(bucket string, key []byte) ([]byte, error) {
	var v []byte
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM kv WHERE bucket = $1 AND key = $2`, bucket, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if v == nil && err == nil {
		v = []byte{}
	}
	return v, err
}

func (t *pgTx) put(bucket string, key, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	_, err := t.tx.Exec(t.ctx, `INSERT INTO kv (bucket, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, bucket, key, value)
	return err
}

func (t *pgTx) delete(bucket string, key []byte) error {
	_, err := t.tx.Exec(t.ctx, `DELETE FROM kv WHERE bucket = $1 AND key = $2`, bucket, key)
	return err
}

func (t *pgTx) scan(bucket string, from, to []byte, reverse bool, fn func(k, v []byte) bool) error {
	type row struct{ k, v []byte }
	page := make([]row, 0, pgScanPage)
	lo, hi := from, to // the range still to read: [lo, hi), hi nil for no bound
	if lo == nil {
		lo = []byte{} // a nil slice would be SQL NULL
	}
	for {
		var q string
		args := []any{bucket, lo, pgScanPage}
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
			if !fn(r.k, r.v) {
				return nil
			}
		}
		if len(page) < pgScanPage {
			return nil
		}
		last := page[len(page)-1].k
		if reverse {
			hi = last // the next page: below the last key read
		} else {
			lo = append(append([]byte(nil), last...), 0) // the next page: after it
		}
	}
}

func (t *pgTx) nextSequence(bucket string) (uint64, error) {
	var n int64
	err := t.tx.QueryRow(t.ctx, `INSERT INTO seq (bucket, value) VALUES ($1, 1)
		ON CONFLICT (bucket) DO UPDATE SET value = seq.value + 1 RETURNING value`, bucket).Scan(&n)
	return uint64(n), err
}

func (t *pgTx) sequence(bucket string) (uint64, error) {
	var n int64
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM seq WHERE bucket = $1`, bucket).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return uint64(n), err
}
