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
// with the columns a write would give them (pgTable.values), and the operator's
// views over them (pgTable.view), which decode the records when read, so a write
// pays for none of it (a jsonb copy of each page record beside its bytes cost
// about 10 % of a node's publishes). folio_ts reads a JSON time (Folio writes RFC
// 3339 with its offset); like the views' other readers it answers NULL for what
// it cannot read, so one odd row never fails a whole query.
func migrateTables(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `CREATE FUNCTION folio_ts(text) RETURNS timestamptz
		LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
		BEGIN RETURN $1::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$`); err != nil {
		return err
	}
	// The views' readers: NULL for what is not JSON PostgreSQL accepts (jsonb
	// refuses \u0000 and invalid UTF-8), never an error that fails a whole query.
	if _, err := tx.Exec(ctx, `CREATE FUNCTION folio_json(bytea) RETURNS jsonb
		LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
		BEGIN RETURN convert_from($1, 'UTF8')::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$`); err != nil {
		return err
	}
	// An audit record: version(1) seq(8) len(prev)(2) prev len(hash)(2) hash entry
	// (audit.go, encodeRecord).
	if _, err := tx.Exec(ctx, `CREATE FUNCTION folio_audit_entry(v bytea) RETURNS jsonb
		LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
		DECLARE p int; h int;
		BEGIN
			p := get_byte(v, 9) * 256 + get_byte(v, 10);
			h := get_byte(v, 11 + p) * 256 + get_byte(v, 12 + p);
			RETURN folio_json(substring(v from 14 + p + h));
		EXCEPTION WHEN others THEN RETURN NULL;
		END $$`); err != nil {
		return err
	}
	for i := range pgTables {
		t := &pgTables[i]
		if _, err := tx.Exec(ctx, t.createTable()); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		if v := t.createView(); v != "" {
			if _, err := tx.Exec(ctx, v); err != nil {
				return fmt.Errorf("%s_view: %w", t.name, err)
			}
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
			row := []any{k, v}
			if t.values != nil {
				row = append(row, t.values(k, v)...)
			}
			batch = append(batch, row)
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
