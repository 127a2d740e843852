package node_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestDeadlineTimersCostAndLateness is the deadline benchmark on one node (bbolt,
// the default 250 ms deadline loop): FOLIO_BENCH_DEADLINE_PAGES pages (default
// 200; the figure is 100,000) with due times spread over a day, each with
// reminders and a default outcome. It asserts, in the same run, that the deadline
// index costs no more per page than the expiry index (rows, bytes, and the time of
// the due-row scan each loop makes), and that due times fire within 1 s: 40 pages
// fall due a few seconds after publication, among the others, and the lateness of
// their default outcomes (the time the execution was recorded minus the due time) is
// reported; its median must be under 1 s and its maximum under 2 s.
func TestDeadlineTimersCostAndLateness(t *testing.T) {
	pages := 200
	if v, err := strconv.Atoi(os.Getenv("FOLIO_BENCH_DEADLINE_PAGES")); err == nil && v > 0 {
		pages = v
	}
	e := nodetest.New(t, func(c *node.Config) {
		c.ExpiryEvery, c.DeadlineEvery, c.DefaultPlan = 250*time.Millisecond, 250*time.Millisecond, "enterprise"
	})
	n := e.Node
	key, _ := e.Register("deadline-bench")
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"title": "Deadline", "actions": []any{map[string]any{"action_id": "approve"}, map[string]any{"action_id": "reject"}}}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}

	// The background: pages due over the next day.
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				due := start.Add(time.Hour + time.Duration(i)*(23*time.Hour/time.Duration(pages)))
				if r := e.Do("POST", "/v1/publish", key, body(map[string]any{"due_at": due.UTC().Format(time.RFC3339),
					"remind": map[string]any{"every_seconds": 3600, "max": 3}, "on_timeout": map[string]any{"action_id": "reject"}})); r.Status != 201 {
					t.Errorf("publish: %d %s", r.Status, r.Body)
				}
			}
		}()
	}
	for i := 0; i < pages; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("published %d pages with deadlines in %v", pages, time.Since(start).Round(time.Millisecond))

	rows := func(bucket string) (count, bytes int) {
		if err := n.Store.View(func(tx *persistence.Tx) error {
			tx.Scan(bucket, nil, false, func(k, v []byte) bool { count++; bytes += len(k) + len(v); return true })
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	er, eb := rows("expiry")
	dr, db := rows("deadline_due")
	t.Logf("index rows: expiry %d (%d B, %.1f B/page), deadlines %d (%d B, %.1f B/page)", er, eb, float64(eb)/float64(er), dr, db, float64(db)/float64(dr))
	if dr != pages || er < pages || float64(db)/float64(dr) > float64(eb)/float64(er) {
		t.Errorf("the deadline index has %d rows of %d B for %d pages; expiry %d rows of %d B: it must cost no more per page", dr, db, pages, er, eb)
	}
	// The two scans alternate and the fastest call of each counts: on a busy
	// machine the slow calls measure the scheduler, not the index.
	scan := func(f func() error) time.Duration {
		t0 := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	now := time.Now()
	expScan, dueScan := time.Hour, time.Hour
	for i := 0; i < 200; i++ {
		expScan = min(expScan, scan(func() error { _, err := page.DueForExpiry(n.Store, now, 1000); return err }))
		dueScan = min(dueScan, scan(func() error { _, err := page.DueDeadlines(n.Store, now, 1000); return err }))
	}
	t.Logf("one loop's scan of the due rows (nothing due): expiry %v, deadlines %v", expScan, dueScan)
	if dueScan > 2*expScan+20*time.Microsecond {
		t.Errorf("the deadline scan takes %v, expiry's %v", dueScan, expScan)
	}

	// The foreground: 40 pages falling due 2-3 s from now.
	const probes = 40
	ids, dues := make([]string, probes), make([]time.Time, probes)
	for i := range ids {
		ids[i] = e.Must(201, "POST", "/v1/publish", key, body(map[string]any{"due_in": 2 + i%2, "on_timeout": map[string]any{"action_id": "reject"}}))["pageId"].(string)
		pg := e.Must(200, "GET", "/v1/pages/"+ids[i], key, nil)
		dues[i], _ = time.Parse(time.RFC3339Nano, pg["due_at"].(string))
	}
	fired := map[string]time.Time{}
	deadline := time.Now().Add(20 * time.Second)
	for len(fired) < probes {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d default outcomes fired within 20 s", len(fired), probes)
		}
		time.Sleep(100 * time.Millisecond)
		for _, id := range ids { // read from the store: reading fires nothing
			if err := n.Store.View(func(tx *persistence.Tx) error {
				var pg struct {
					Executions []struct {
						ExecutedAt time.Time `json:"executed_at"`
					} `json:"executions"`
				}
				if err := json.Unmarshal(tx.Get("pages", []byte(id)), &pg); err != nil {
					return err
				}
				if len(pg.Executions) > 0 {
					fired[id] = pg.Executions[0].ExecutedAt
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	late := make([]time.Duration, probes)
	for i, id := range ids {
		late[i] = fired[id].Sub(dues[i])
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	t.Logf("lateness of %d due times among %d pages with deadlines: median %v, p90 %v, max %v", probes, pages,
		late[probes/2].Round(time.Millisecond), late[probes*9/10].Round(time.Millisecond), late[probes-1].Round(time.Millisecond))
	if late[probes/2] > time.Second || late[probes-1] > 2*time.Second || late[0] < 0 {
		t.Errorf("lateness %v: a due time must fire within 1 s (and never early)", fmt.Sprint(late))
	}
}
