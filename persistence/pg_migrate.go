package persistence

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migration is one version of the schema: run once, in the transaction that
// records it in folio_schema.
type migration func(ctx context.Context, tx pgx.Tx) error

// migrations are the schema's versions, in order; a database records the last it
// ran in folio_schema, and a starting node runs the rest under an advisory lock in
// one transaction, so nodes starting together migrate once and a failed migration
// leaves the database as it was.
//
//  1. every bucket as rows of kv(bucket, key, value), sequences in seq;
//  2. the hot records' buckets in tables of their own (pg_tables.go), their rows
//     moved out of kv.
var migrations = []migration{
	execMigration(`CREATE TABLE kv (bucket text NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (bucket, key));
	 CREATE TABLE seq (bucket text PRIMARY KEY, value bigint NOT NULL)`),
	migrateTables,
}

// schemaTables is the first version that routes buckets to their tables: a
// database below it keeps every bucket in kv.
const schemaTables = 2

func execMigration(sql string) migration {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql)
		return err
	}
}

// migrateTables creates pgTables and moves each routed bucket's rows out of kv,
// with the columns a write would give them (pgTable.values). folio_ts reads a
// JSON time: Folio writes RFC 3339 with its offset, so the cast does not depend on
// the session's TimeZone and may be declared immutable, as a generated column needs.
// It is PL/pgSQL, not SQL: an SQL function declared immutable around a stable cast
// is not inlined, and then plans its query again at every row written.
func migrateTables(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `CREATE FUNCTION folio_ts(text) RETURNS timestamptz
		LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN RETURN $1::timestamptz; END $$`); err != nil {
		return err
	}
	for i := range pgTables {
		t := &pgTables[i]
		if _, err := tx.Exec(ctx, t.createTable()); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		if err := moveRows(ctx, tx, t); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

// moveRows copies the bucket's kv rows into its table, a page of keys at a time
// (memory stays bounded on a large database), then deletes them from kv.
func moveRows(ctx context.Context, tx pgx.Tx, t *pgTable) error {
	const page = 1000
	cols := append([]string{"key", "value"}, t.extra...)
	from := []byte{}
	for {
		rows, err := tx.Query(ctx, `SELECT key, value FROM kv WHERE bucket = $1 AND key >= $2 ORDER BY key LIMIT $3`, t.bucket, from, page)
		if err != nil {
			return err
		}
		var batch [][]any
		for rows.Next() {
			var k, v []byte
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, append([]any{k, v}, t.values(k, v)...))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, cols, pgx.CopyFromRows(batch)); err != nil {
				return err
			}
		}
		if len(batch) < page {
			break
		}
		from = append(append([]byte(nil), batch[len(batch)-1][0].([]byte)...), 0)
	}
	_, err := tx.Exec(ctx, `DELETE FROM kv WHERE bucket = $1`, t.bucket)
	return err
}

// migrate brings the database to version upTo (len(migrations) in service) and
// returns the version it is at. A database at a version newer than this binary's
// is refused: its records may be where this binary does not look.
func migrate(ctx context.Context, pool *pgxpool.Pool, upTo int) (int, error) {
	var at int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
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
			return fmt.Errorf("persistence: the database is at schema version %d, newer than this binary's %d: run a newer Folio", version, len(migrations))
		}
		at = max(version, upTo)
		for v := version; v < upTo; v++ {
			if err := migrations[v](ctx, tx); err != nil {
				return fmt.Errorf("persistence: migration %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO folio_schema (version) VALUES ($1)`, v+1); err != nil {
				return fmt.Errorf("persistence: migration %d: %w", v+1, err)
			}
		}
		return nil
	})
	return at, err
}
