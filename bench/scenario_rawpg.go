//go:build linux

package bench

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"folio/persistence/pglocal"
)

func init() { Scenarios["raw-pg"] = rawPGScenario }

// rawPGLoops is how many group-commit loops share the load: each takes every
// queued command (up to rawPGBatch) into one transaction.
const (
	rawPGLoops = 3
	rawPGBatch = 256
)

// rawPGSchema is the commit shape of a publish as PostgreSQL tables: the page
// with its revision, the tenant's audit chain head, the audit, agent event and
// outbox rows.
const rawPGSchema = `
DROP TABLE IF EXISTS raw_pages, raw_heads, raw_audit, raw_events, raw_outbox;
CREATE TABLE raw_pages (id text PRIMARY KEY, tenant int NOT NULL, revision int NOT NULL, body bytea NOT NULL);
CREATE TABLE raw_heads (tenant int PRIMARY KEY, seq bigint NOT NULL, hash bytea NOT NULL);
CREATE TABLE raw_audit (tenant int NOT NULL, seq bigint NOT NULL, hash bytea NOT NULL, page text NOT NULL, PRIMARY KEY (tenant, seq));
CREATE TABLE raw_events (id bigserial PRIMARY KEY, tenant int NOT NULL, page text NOT NULL, type text NOT NULL, body bytea NOT NULL);
CREATE TABLE raw_outbox (id bigserial PRIMARY KEY, due timestamptz NOT NULL, page text NOT NULL, body bytea NOT NULL);
CREATE INDEX ON raw_outbox (due);`

// rawPGCmd is one publish: page id for tenant, answered on done.
type rawPGCmd struct {
	tenant int
	page   string
	body   []byte
	done   chan error
}

// rawPGScenario is the floor Folio on PostgreSQL is measured against: what a
// publish commits, written directly with pgx, no Folio. Each of
// o.Concurrency clients submits publishes; rawPGLoops loops group them into
// READ COMMITTED transactions that (1) lock the batch's tenants' chain heads,
// SELECT … FOR UPDATE in tenant order, (2) insert each page at revision 1 (the
// version check: a page that exists already fails its command) with its audit
// row chained to the head, its agent event and its outbox row, and move the heads,
// pipelined in one round trip, then commit. Client i publishes for tenant
// i mod o.Tenants. The target's nodes are not used. Check: each tenant's audit
// chain has no gap and holds exactly the acknowledged pages.
func rawPGScenario(ctx context.Context, _ *Target, o Options) (*Result, error) {
	url, stop, err := rawPGDatabase(ctx, o.PostgresURL)
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = rawPGLoops + 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, rawPGSchema); err != nil {
		return nil, fmt.Errorf("raw-pg: schema: %w", err)
	}
	for tn := 0; tn < o.Tenants; tn++ {
		if _, err := pool.Exec(ctx, `INSERT INTO raw_heads VALUES ($1, 0, '\x00')`, tn); err != nil {
			return nil, err
		}
	}

	reqs := make(chan *rawPGCmd, o.Concurrency)
	var loops sync.WaitGroup
	for range rawPGLoops {
		loops.Add(1)
		go func() { defer loops.Done(); rawPGLoop(pool, reqs) }()
	}
	rec := NewRecorder()
	var mu sync.Mutex
	acked := 0
	elapsed := drive(ctx, "raw-pg", o, rec, func(ctx context.Context, i int) string {
		c := &rawPGCmd{tenant: i % o.Tenants, page: fmt.Sprintf("p%d", i), body: pageBody(i, o.PayloadBytes), done: make(chan error, 1)}
		reqs <- c
		if err := <-c.done; err != nil {
			return "error"
		}
		mu.Lock()
		acked++
		mu.Unlock()
		return ""
	})
	close(reqs)
	loops.Wait()
	n, lat, errs := rec.Summary()
	res := &Result{Scenario: "raw-pg", Operations: n, Seconds: elapsed.Seconds(), Unit: "commands/s", Latency: lat, Errors: errs,
		Params: map[string]any{"concurrency": o.Concurrency, "tenants": o.Tenants, "loops": rawPGLoops, "isolation": "read committed"}}
	var audit, maxSeq, heads, pages int64
	err = pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM raw_audit), (SELECT coalesce(sum(m), 0) FROM (SELECT max(seq) m FROM raw_audit GROUP BY tenant) x),
		(SELECT sum(seq) FROM raw_heads), (SELECT count(*) FROM raw_pages)`).Scan(&audit, &maxSeq, &heads, &pages)
	res.check("audit chains whole", err == nil && audit == maxSeq && audit == heads && pages == audit && int(pages) == acked,
		"%d acknowledged, %d pages, %d audit rows, chain heads at %d in total (err %v)", acked, pages, audit, heads, err)
	return res, nil
}

// rawPGLoop commits what reqs delivers, every command already queued (up to
// rawPGBatch) in one transaction; a failed transaction fails its commands.
func rawPGLoop(pool *pgxpool.Pool, reqs <-chan *rawPGCmd) {
	batch := make([]*rawPGCmd, 0, rawPGBatch)
	for first := range reqs {
		batch = append(batch[:0], first)
	drain:
		for len(batch) < rawPGBatch {
			select {
			case c, ok := <-reqs:
				if !ok {
					break drain
				}
				batch = append(batch, c)
			default:
				break drain
			}
		}
		err := rawPGCommit(pool, batch)
		for _, c := range batch {
			c.done <- err
		}
	}
}

func rawPGCommit(pool *pgxpool.Pool, batch []*rawPGCmd) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		var tenants []int32
		for _, c := range batch {
			tenants = append(tenants, int32(c.tenant))
		}
		slices.Sort(tenants)
		tenants = slices.Compact(tenants)
		// The chain heads, locked in one global order (by tenant): two loops'
		// batches wait for each other instead of deadlocking.
		rows, err := tx.Query(ctx, `SELECT tenant, seq, hash FROM raw_heads WHERE tenant = ANY($1) ORDER BY tenant FOR UPDATE`, tenants)
		if err != nil {
			return err
		}
		type head struct {
			seq  int64
			hash []byte
		}
		heads := map[int]*head{}
		for rows.Next() {
			var tn int32
			h := &head{}
			if err := rows.Scan(&tn, &h.seq, &h.hash); err != nil {
				rows.Close()
				return err
			}
			heads[int(tn)] = h
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		b := &pgx.Batch{}
		now := time.Now()
		for _, c := range batch {
			h := heads[c.tenant]
			h.seq++
			sum := sha256.Sum256(append(append([]byte{}, h.hash...), c.body...))
			h.hash = sum[:]
			b.Queue(`INSERT INTO raw_pages (id, tenant, revision, body) VALUES ($1, $2, 1, $3)`, c.page, c.tenant, c.body)
			b.Queue(`INSERT INTO raw_audit (tenant, seq, hash, page) VALUES ($1, $2, $3, $4)`, c.tenant, h.seq, h.hash, c.page)
			b.Queue(`INSERT INTO raw_events (tenant, page, type, body) VALUES ($1, $2, 'page.published', $3)`, c.tenant, c.page, c.body[:min(len(c.body), 200)])
			b.Queue(`INSERT INTO raw_outbox (due, page, body) VALUES ($1, $2, $3)`, now, c.page, []byte(`{"event":"page.published"}`))
		}
		for _, tn := range tenants {
			h := heads[int(tn)]
			b.Queue(`UPDATE raw_heads SET seq = $2, hash = $3 WHERE tenant = $1`, tn, h.seq, h.hash)
		}
		return tx.SendBatch(ctx, b).Close()
	})
}

// rawPGDatabase is an empty database: on the server at url (--pg-url), or on a
// PostgreSQL the scenario starts on a temporary directory and stops after.
func rawPGDatabase(ctx context.Context, url string) (string, func(), error) {
	if url != "" {
		return url, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "folio-bench-pg-")
	if err != nil {
		return "", nil, err
	}
	// The server may run as another user (postgres, when this runs as root): it
	// must be able to enter dir to reach its data directory.
	if err := os.Chmod(dir, 0o711); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	srv, err := pglocal.Start(ctx, pglocal.Options{Dir: dir + "/data", NoSync: true})
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("raw-pg: start PostgreSQL (or give --pg-url): %w", err)
	}
	stop := func() { _ = srv.Stop(); _ = os.RemoveAll(dir) }
	if err := srv.CreateDatabase(ctx, "rawpg"); err != nil {
		stop()
		return "", nil, err
	}
	return srv.URL("rawpg"), stop, nil
}
