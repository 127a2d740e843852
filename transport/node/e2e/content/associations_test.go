package content_test

import (
	"sync"
	"testing"

	"folio/transport/node/nodetest"
)

func TestAssociations(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, tenantID := e.Register("linker")
	a, b, c := e.Publish(key, nil), e.Publish(key, nil), e.Publish(key, nil)

	m := e.Must(201, "POST", "/v1/pages/"+a+"/associations", key, map[string]any{"targetPageId": b, "relationType": "follow_up"})
	if m["id"] == "" || m["sourcePageId"] != a || m["targetPageId"] != b || m["relationType"] != "follow_up" ||
		m["tenantId"] != tenantID || m["createdAt"] == nil {
		t.Fatalf("association = %v", m)
	}
	e.Must(201, "POST", "/v1/pages/"+c+"/associations", key, map[string]any{"targetPageId": a, "relationType": "duplicate"})
	e.Must(201, "POST", "/v1/pages/"+a+"/associations", key, map[string]any{"targetPageId": b, "relationType": "related"})

	// Both directions: a's own links and the one pointing at it.
	list := e.Must(200, "GET", "/v1/pages/"+a+"/associations", key, nil)["associations"].([]any)
	if len(list) != 3 {
		t.Fatalf("associations of a = %v", list)
	}
	dirs := map[string]string{}
	for _, x := range list {
		x := x.(map[string]any)
		dirs[x["relationType"].(string)] = x["direction"].(string)
	}
	if dirs["follow_up"] != "outgoing" || dirs["related"] != "outgoing" || dirs["duplicate"] != "incoming" {
		t.Errorf("directions = %v", dirs)
	}
	if l := e.Must(200, "GET", "/v1/pages/"+b+"/associations", key, nil)["associations"].([]any); len(l) != 2 {
		t.Errorf("associations of b (two incoming) = %v", l)
	}

	// The same link twice is a conflict; the audit trail records the link.
	if r := e.Do("POST", "/v1/pages/"+a+"/associations", key, map[string]any{"targetPageId": b, "relationType": "follow_up"}); r.Status != 409 || r.ErrDetails(t)["associationId"] != m["id"] {
		t.Errorf("duplicate: %d %s", r.Status, r.Body)
	}
	items := e.Must(200, "GET", "/v1/pages/"+a+"/audit", key, nil)["items"].([]any)
	if last := items[len(items)-1].(map[string]any); last["event_type"] != "association.created" {
		t.Errorf("audit = %v", last)
	}
	e.Must(200, "GET", "/v1/audit/verify", key, nil)

	// A completed or revoked page can still be linked (a follow-up of a decision).
	approveID := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+approveID+"/actions/approve", key, nil)
	e.Must(201, "POST", "/v1/pages/"+c+"/associations", key, map[string]any{"targetPageId": approveID, "relationType": "supersedes"})
	e.Must(201, "POST", "/v1/pages/"+approveID+"/associations", key, map[string]any{"targetPageId": c, "relationType": "blocks"})
}

func TestAssociationErrors(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("linker")
	other, _ := e.Register("stranger")
	a, b := e.Publish(key, nil), e.Publish(key, nil)
	theirs := e.Publish(other, nil)

	for _, c := range []struct {
		source, target, relation string
		status                   int
		field, constraint        string
	}{
		{a, b, "cousin", 400, "relationType", "enum"},
		{a, b, "", 400, "relationType", "required"},
		{a, "", "related", 400, "targetPageId", "required"},
		{a, a, "related", 400, "targetPageId", "distinct"},
		{a, theirs, "related", 404, "targetPageId", ""}, // target in another tenant
		{a, "pg_missing", "related", 404, "targetPageId", ""},
		{theirs, a, "related", 404, "", ""}, // source in another tenant
		{"pg_missing", a, "related", 404, "", ""},
	} {
		r := e.Do("POST", "/v1/pages/"+c.source+"/associations", key, map[string]any{"targetPageId": c.target, "relationType": c.relation})
		d := r.ErrDetails(t)
		if r.Status != c.status || (c.field != "" && d["field"] != c.field) || (c.constraint != "" && d["constraint"] != c.constraint) {
			t.Errorf("%s -> %s (%q): %d %s, want %d %s/%s", c.source, c.target, c.relation, r.Status, r.Body, c.status, c.field, c.constraint)
		}
	}
	if r := e.Do("GET", "/v1/pages/"+theirs+"/associations", key, nil); r.Status != 404 {
		t.Errorf("listing another tenant's page: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pages/"+a+"/associations", "", map[string]any{"targetPageId": b, "relationType": "related"}); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
	if l := e.Must(200, "GET", "/v1/pages/"+a+"/associations", key, nil)["associations"].([]any); len(l) != 0 {
		t.Errorf("refused links were stored: %v", l)
	}
}

// Concurrent clients linking the same pair: exactly one wins, the rest get 409.
func TestAssociationRace(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("linker")
	a, b := e.Publish(key, nil), e.Publish(key, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.Do("POST", "/v1/pages/"+a+"/associations", key, map[string]any{"targetPageId": b, "relationType": "related"})
			mu.Lock()
			codes[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[201] != 1 || codes[409] != 15 {
		t.Errorf("statuses = %v", codes)
	}
	if l := e.Must(200, "GET", "/v1/pages/"+b+"/associations", key, nil)["associations"].([]any); len(l) != 1 {
		t.Errorf("stored = %v", l)
	}
}
