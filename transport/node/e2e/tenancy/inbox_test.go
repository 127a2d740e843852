package tenancy_test

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestInboxListsEveryPageNewestFirstWithFiltersAndPaging: every page, draft or
// published, has one entry; listings are newest first, filter by reading state,
// priority and pageType, page with limit/offset, and total counts the filtered set.
// The entry follows the page: its title, priority and pageStatus.
func TestInboxListsEveryPageNewestFirstWithFiltersAndPaging(t *testing.T) {
	e, clk := start(t, time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC))
	key, _ := e.Register("inbox-owner")
	p1 := e.Publish(key, map[string]any{"title": "A", "priority": "high", "page_type": "approval"})
	clk.Advance(time.Minute)
	p2 := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "B", "priority": "low", "page_type": "review"})["pageId"].(string)
	clk.Advance(time.Minute)
	p3 := e.Publish(key, map[string]any{"title": "C", "page_type": "approval"})
	clk.Advance(time.Minute)
	p4 := e.Publish(key, map[string]any{"title": "D", "priority": "urgent", "page_type": "incident"})

	entries, total := list(t, e, key, "")
	if total != 4 || !same(pageIDs(entries), []string{p4, p3, p2, p1}) {
		t.Fatalf("inbox %v total %v, want [%s %s %s %s] 4", pageIDs(entries), total, p4, p3, p2, p1)
	}
	first := entries[3]
	for k, want := range map[string]any{"pageId": p1, "title": "A", "pageType": "approval", "status": "unread",
		"starred": false, "priority": "high", "pageStatus": "active", "createdAt": "2025-05-01T10:00:00Z"} {
		if first[k] != want {
			t.Errorf("entry of %s: %s = %v, want %v (%v)", p1, k, first[k], want, first)
		}
	}
	if id, _ := first["id"].(string); id == "" || id == p1 {
		t.Errorf("entry id %q: want an id of its own", id)
	}
	if entries[2]["pageStatus"] != "draft" || entries[1]["priority"] != "normal" {
		t.Errorf("draft entry %v, default priority entry %v", entries[1], entries[2])
	}

	for _, c := range []struct {
		query string
		want  []string
		total float64
	}{
		{"?priority=high", []string{p1}, 1},
		{"?pageType=approval", []string{p3, p1}, 2},
		{"?page_type=approval&priority=normal", []string{p3}, 1},
		{"?status=unread&pageType=review", []string{p2}, 1},
		{"?limit=2", []string{p4, p3}, 4},
		{"?limit=2&offset=2", []string{p2, p1}, 4},
		{"?limit=3&offset=3", []string{p1}, 4},
		{"?offset=10", []string{}, 4},
		{"?status=read", []string{}, 0},
	} {
		got, total := list(t, e, key, c.query)
		if total != c.total || !same(pageIDs(got), c.want) {
			t.Errorf("GET /v1/inbox%s: %v total %v, want %v total %v", c.query, pageIDs(got), total, c.want, c.total)
		}
	}

	// The entry follows its page.
	e.Must(200, "POST", "/v1/pages/"+p1+"/actions/approve", key, nil)
	e.Must(200, "PATCH", "/v1/pages/"+p2, key, map[string]any{"title": "B2", "priority": "urgent"})
	got, _ := list(t, e, key, "?priority=urgent")
	if !same(pageIDs(got), []string{p4, p2}) || got[1]["title"] != "B2" {
		t.Fatalf("after edits, urgent: %v", got)
	}
	if got, _ := list(t, e, key, "?priority=high"); got[0]["pageStatus"] != "completed" {
		t.Fatalf("completed page's entry: %v", got[0])
	}
	if _, total := list(t, e, key, "?priority=low"); total != 0 {
		t.Fatalf("priority=low still lists %v entries after the page moved to urgent", total)
	}

	// Bad queries are 400s naming the parameter.
	for _, q := range []string{"?status=bogus", "?priority=bogus", "?limit=0", "?limit=201", "?offset=-1", "?limit=x"} {
		r := e.Do("GET", "/v1/inbox"+q, key, nil)
		if r.Status != 400 || r.ErrCode(t) != "INVALID_REQUEST" || r.ErrDetails(t)["field"] == nil {
			t.Errorf("GET /v1/inbox%s: %d %s", q, r.Status, r.Body)
		}
	}
	if r := e.Do("GET", "/v1/inbox", "", nil); r.Status != 401 {
		t.Errorf("inbox without a key: %d", r.Status)
	}

	// Restarting keeps everything.
	e = e.Reopen()
	if entries, total := list(t, e, key, ""); total != 4 || !same(pageIDs(entries), []string{p4, p3, p2, p1}) {
		t.Fatalf("after restart: %v total %v", pageIDs(entries), total)
	}
}

// TestInboxReadingStates: unread -> read -> archived; star and unstar; archived
// entries leave the default listing and show under status=archived; unknown and
// other tenants' entries are 404.
func TestInboxReadingStates(t *testing.T) {
	e, clk := start(t, time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC))
	key, _ := e.Register("reader")
	var pages []string
	for i := 0; i < 3; i++ {
		pages = append(pages, e.Publish(key, map[string]any{"title": fmt.Sprint("page ", i)}))
		clk.Advance(time.Second)
	}
	a, b, c := entryOf(t, e, key, pages[0]), entryOf(t, e, key, pages[1]), entryOf(t, e, key, pages[2])

	if r := e.Do("PATCH", "/v1/inbox/"+a+"/read", key, nil); r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("read: %d %s", r.Status, r.Body)
	}
	e.Must(204, "PATCH", "/v1/inbox/"+a+"/read", key, nil) // again: still read
	if got, total := list(t, e, key, "?status=read"); total != 1 || got[0]["id"] != a || got[0]["status"] != "read" {
		t.Fatalf("status=read: %v", got)
	}
	if _, total := list(t, e, key, "?status=unread"); total != 2 {
		t.Fatalf("status=unread total %v, want 2", total)
	}

	starred := func(id string) any {
		for _, q := range []string{"?limit=200", "?status=archived"} {
			entries, _ := list(t, e, key, q)
			for _, it := range entries {
				if it["id"] == id {
					return it["starred"]
				}
			}
		}
		return nil
	}
	e.Must(204, "PATCH", "/v1/inbox/"+b+"/star", key, nil) // no body: starred
	if starred(b) != true {
		t.Fatal("star without a body did not star")
	}
	e.Must(204, "PATCH", "/v1/inbox/"+b+"/star", key, map[string]any{"starred": false})
	if starred(b) != false {
		t.Fatal("starred:false did not unstar")
	}
	e.Must(204, "PATCH", "/v1/inbox/"+b+"/star", key, map[string]any{})
	if starred(b) != true {
		t.Fatal("star with {} (starred omitted) did not star")
	}
	if r := e.Do("PATCH", "/v1/inbox/"+b+"/star", key, map[string]any{"starred": "yes"}); r.Status != 400 || r.ErrDetails(t)["field"] != "starred" {
		t.Fatalf("starred of the wrong type: %d %s", r.Status, r.Body)
	}

	// Archive (soft delete): gone from the default listing, listed as archived.
	e.Must(204, "DELETE", "/v1/inbox/"+a, key, nil)
	e.Must(204, "DELETE", "/v1/inbox/"+b, key, nil)
	e.Must(204, "DELETE", "/v1/inbox/"+b, key, nil) // again: still archived
	if got, total := list(t, e, key, ""); total != 1 || got[0]["id"] != c {
		t.Fatalf("default listing after archiving two: %v total %v", pageIDs(got), total)
	}
	got, total := list(t, e, key, "?status=archived")
	if total != 2 || got[0]["id"] != b || got[1]["id"] != a || got[0]["status"] != "archived" || got[0]["starred"] != true {
		t.Fatalf("status=archived: %v", got)
	}
	e.Must(204, "PATCH", "/v1/inbox/"+a+"/read", key, nil) // reading an archived entry keeps it archived
	e.Must(204, "PATCH", "/v1/inbox/"+a+"/star", key, nil) // starring keeps the reading state
	if got, _ := list(t, e, key, "?status=archived"); len(got) != 2 || got[1]["status"] != "archived" || got[1]["starred"] != true {
		t.Fatalf("archived entry after read and star: %v", got[1])
	}

	other, _ := e.Register("other")
	if _, total := list(t, e, other, ""); total != 0 {
		t.Fatalf("another tenant sees %v entries", total)
	}
	for _, id := range []string{c, "inb_nope", pages[2]} {
		for _, req := range [][2]string{{"PATCH", "/read"}, {"PATCH", "/star"}, {"DELETE", ""}} {
			k := other
			if id != c {
				k = key
			}
			if r := e.Do(req[0], "/v1/inbox/"+id+req[1], k, nil); r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
				t.Errorf("%s /v1/inbox/%s%s: %d %s", req[0], id, req[1], r.Status, r.Body)
			}
		}
	}
	if got, _ := list(t, e, key, ""); got[0]["status"] != "unread" {
		t.Fatalf("the other tenant changed an entry: %v", got[0])
	}
}

// TestInboxKeepsBothSidesUnderConcurrentChanges: page edits (written by the page
// actors' commits) and reading-state changes (written by the inbox actor) hit the
// same entries at the same time; neither overwrites the other.
func TestInboxKeepsBothSidesUnderConcurrentChanges(t *testing.T) {
	e, _ := start(t, time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC))
	key, _ := e.Register("racer")
	const n = 16
	ids := make([]string, n)
	entries := make([]string, n)
	for i := range ids {
		ids[i] = e.Publish(key, map[string]any{"title": fmt.Sprint("t", i)})
	}
	for i := range ids {
		entries[i] = entryOf(t, e, key, ids[i])
	}
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				e.Must(200, "PATCH", "/v1/pages/"+ids[i], key, map[string]any{"title": fmt.Sprint("edited ", i, " ", j), "priority": "high"})
			}
		}()
		go func() { defer wg.Done(); e.Must(204, "PATCH", "/v1/inbox/"+entries[i]+"/read", key, nil) }()
		go func() { defer wg.Done(); e.Must(204, "PATCH", "/v1/inbox/"+entries[i]+"/star", key, nil) }()
	}
	wg.Wait()
	got, total := list(t, e, key, "?status=read&priority=high&limit=200")
	if total != n {
		t.Fatalf("status=read&priority=high total %v, want %d", total, n)
	}
	for _, it := range got {
		var i int
		fmt.Sscanf(it["title"].(string), "edited %d 4", &i)
		if it["title"] != fmt.Sprint("edited ", i, " 4") || it["starred"] != true || it["status"] != "read" {
			t.Errorf("entry lost a change: %v", it)
		}
	}
}
