package node_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// On PostgreSQL, connections cut under a light load of authenticated reads (what a
// server restart does to a node) give clients 200 or 503 "try again", never a 401
// for a valid key or a 404 for a page that exists.
func TestCutStoreConnectionsNeverAnswerUnauthorizedOrNotFound(t *testing.T) {
	url := pgtest.URL(t)
	e := nodetest.New(t, func(c *node.Config) { c.Store = url })
	key, _ := e.Register("cut")
	id := e.Publish(key, nil)

	admin, ctx := pgtest.Connect(t, url, 2*time.Minute) // a loaded machine

	const clients, each = 4, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]int{}
	var wrong []string
	answered := make(chan struct{}, clients*each)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				path := "/v1/pages/" + id
				if (c+i)%2 == 0 {
					path = "/v1/tenant"
				}
				r := e.Do("GET", path, key, nil)
				mu.Lock()
				seen[r.Status]++
				if r.Status != 200 && r.Status != 503 {
					wrong = append(wrong, fmt.Sprintf("GET %s = %d %s", path, r.Status, r.Body))
				}
				mu.Unlock()
				answered <- struct{}{}
			}
		}()
	}
	cuts := 0
	var cutErr error
	for range 5 { // a cut after every 25 answers: spread over the load
		for range 25 {
			<-answered
		}
		if _, cutErr = admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`); cutErr != nil {
			break
		}
		cuts++
	}
	wg.Wait() // the clients use the node: it must outlive them, whatever happened here
	if cutErr != nil {
		t.Fatalf("cutting the connections: %v", cutErr)
	}
	t.Logf("%d cuts; statuses %v", cuts, seen)
	if len(wrong) > 0 {
		t.Fatalf("%d of %d requests were refused for something that exists:\n%v", len(wrong), clients*each, wrong)
	}
	e.Must(200, "GET", "/v1/pages/"+id, key, nil)
}
