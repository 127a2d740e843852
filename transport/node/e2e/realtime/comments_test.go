package realtime_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// TestCommentRules: content is required and bounded; author_type is user (default)
// or agent (the owner's key only); block_id must name a block of the page and
// parent_id a comment of it; anyone may list the comments of a public page, in
// order; each change reaches the comment stream.
func TestCommentRules(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("commenter")
	id := e.Publish(key, map[string]any{"blocks": []any{map[string]any{"id": "intro", "type": "text", "data": map[string]any{"content": "Hi"}}}})
	other := e.Publish(key, nil)
	cs := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "")
	p := "/v1/pages/" + id + "/comments"

	first := e.Must(201, "POST", p, "", map[string]any{"content": "Looks fine", "author_name": "alice@example.com", "block_id": "intro"})
	if first["authorType"] != "user" || first["authorName"] != "alice@example.com" || first["block_id"] != "intro" || first["pageId"] != id || first["createdAt"] == nil {
		t.Fatalf("comment: %v", first)
	}
	reply := e.Must(201, "POST", p, key, map[string]any{"content": "Thanks!", "author_type": "agent", "parent_id": first["id"]})
	if reply["authorType"] != "agent" || reply["authorName"] != "agent:commenter" || reply["parent_id"] != first["id"] {
		t.Fatalf("reply: %v", reply)
	}
	otherComment := e.Must(201, "POST", "/v1/pages/"+other+"/comments", key, map[string]any{"content": "elsewhere"})

	for _, tc := range []struct {
		key    string
		body   map[string]any
		status int
		field  string
	}{
		{"", map[string]any{}, 400, "content"},
		{"", map[string]any{"content": "   "}, 400, "content"},
		{"", map[string]any{"content": strings.Repeat("x", 10001)}, 400, "content"},
		{"", map[string]any{"content": "x", "author_type": "robot"}, 400, "author_type"},
		{"", map[string]any{"content": "x", "author_type": "agent"}, 403, "author_type"},
		{"", map[string]any{"content": "x", "block_id": "nope"}, 400, "block_id"},
		{"", map[string]any{"content": "x", "parent_id": "cmt_nope"}, 400, "parent_id"},
		{"", map[string]any{"content": "x", "parent_id": otherComment["id"]}, 400, "parent_id"},
		{"", map[string]any{"content": "x", "author_name": strings.Repeat("a", 201)}, 400, "author_name"},
		{"", map[string]any{"content": 5}, 400, "content"},
	} {
		r := e.Do("POST", p, tc.key, tc.body)
		if r.Status != tc.status || r.ErrDetails(t)["field"] != tc.field {
			t.Errorf("POST %v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	list := e.Must(200, "GET", p, "", nil)
	cs2 := list["comments"].([]any)
	if len(cs2) != 2 || cs2[0].(map[string]any)["id"] != first["id"] || cs2[1].(map[string]any)["id"] != reply["id"] || list["total"] != 2.0 {
		t.Fatalf("list: %v", list)
	}
	ms := cs.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 2 })
	if ms[0].Type != "comment.added" || ms[0].data()["commentId"] != first["id"] || ms[0].data()["content"] != "Looks fine" {
		t.Fatalf("comment stream: %s", ms[0].Raw)
	}
	cs.quiet(50 * time.Millisecond) // the other page's comment is not here
}

// TestCommentAuthorshipCannotBeForged: a comment changes only with proof — the edit
// token handed once to its anonymous author, a key of the tenant that wrote it, or
// the owner's key. A typed identity (editor_identity / deleter_identity) is only a
// label, so naming the author proves nothing; another tenant's key is a stranger to
// comments it did not write; `agent:` names are the page agent's alone. Edits and
// deletes emit their events; a completed page takes no new comments (409) but its
// owner may still delete them.
func TestCommentAuthorshipCannotBeForged(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	stranger, _ := e.Register("stranger")
	id := e.Publish(key, nil)
	p := "/v1/pages/" + id + "/comments/"
	events := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	events.expect("connected")
	c := e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "v1", "author_name": "bob@example.com"})
	cid := c["id"].(string)
	token, _ := c["editToken"].(string)
	if !strings.HasPrefix(token, "cet_") || len(token) < 30 {
		t.Fatalf("an anonymous comment's edit token: %q", token)
	}
	events.expect("comment.added")
	if listed := e.Must(200, "GET", "/v1/pages/"+id+"/comments", "", nil)["comments"].([]any)[0].(map[string]any); listed["editToken"] != nil {
		t.Fatalf("the edit token is listed: %v", listed)
	}

	for _, tc := range []struct {
		key, identity, token string
	}{{"", "", ""}, {"", "bob@example.com", ""}, {"", "bob@example.com", "cet_forged"}, {stranger, "bob@example.com", ""}} {
		if r := e.Do("PATCH", p+cid, tc.key, map[string]any{"content": "hacked", "editor_identity": tc.identity, "edit_token": tc.token}); r.Status != 403 || r.ErrCode(t) != "FORBIDDEN" {
			t.Errorf("edit by %q/%q/%q: %d %s", tc.key, tc.identity, tc.token, r.Status, r.Body)
		}
	}
	ed := e.Must(200, "PATCH", p+cid, "", map[string]any{"content": "v2", "editor_identity": "bob@example.com", "edit_token": token})
	if ed["content"] != "v2" || ed["updatedAt"] == nil || ed["id"] != cid {
		t.Fatalf("edit: %v", ed)
	}
	if m, _ := events.expect("comment.updated"); m.data()["commentId"] != cid || m.data()["content"] != "v2" {
		t.Fatalf("comment.updated: %s", m.Raw)
	}
	e.Must(200, "PATCH", p+cid, key, map[string]any{"content": "v3"}) // the owner's key
	if r := e.Do("PATCH", p+cid, "", map[string]any{"edit_token": token}); r.Status != 400 {
		t.Fatalf("edit without content: %d", r.Status)
	}
	if r := e.Do("PATCH", p+"cmt_nope", key, map[string]any{"content": "x"}); r.Status != 404 {
		t.Fatalf("edit unknown: %d", r.Status)
	}
	for _, name := range []string{"agent:owner", "Agent:Owner", "agent"} {
		if r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "x", "author_name": name}); r.Status != 400 || r.ErrDetails(t)["constraint"] != "reserved" {
			t.Fatalf("an anonymous comment named %q: %d %s", name, r.Status, r.Body)
		}
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "x", "author_type": "agent"}); r.Status != 403 {
		t.Fatalf("an anonymous agent comment: %d", r.Status)
	}
	agent := e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "bot says", "author_type": "agent"})
	if agent["editToken"] != nil {
		t.Fatalf("a keyed comment got an edit token: %v", agent)
	}
	if r := e.Do("PATCH", p+agent["id"].(string), "", map[string]any{"content": "x", "editor_identity": "agent:owner", "edit_token": token}); r.Status != 403 {
		t.Fatalf("another comment's token used on the agent's: %d", r.Status)
	}
	// A comment written with another tenant's key belongs to that tenant's keys.
	theirs := e.Must(201, "POST", "/v1/pages/"+id+"/comments", stranger, map[string]any{"content": "from outside"})
	e.Must(200, "PATCH", p+theirs["id"].(string), stranger, map[string]any{"content": "edited by its writer"})
	if r := e.Do("DELETE", p+cid, "", map[string]any{"deleter_identity": "bob@example.com"}); r.Status != 403 {
		t.Fatalf("delete by typing the author's name: %d", r.Status)
	}
	e.Must(204, "DELETE", p+cid, "", map[string]any{"deleter_identity": "bob@example.com", "edit_token": token})
	if m, _ := events.expect("comment.deleted"); m.data()["commentId"] != cid {
		t.Fatalf("comment.deleted: %s", m.Raw)
	}
	if r := e.Do("DELETE", p+cid, key, nil); r.Status != 404 {
		t.Fatalf("second delete: %d", r.Status)
	}
	e.Must(204, "DELETE", p+theirs["id"].(string), key, nil)
	// Completed: no new comments or edits, but the owner may clean up.
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	if r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "late"}); r.Status != 409 || r.ErrDetails(t)["status"] != "completed" {
		t.Fatalf("comment on a completed page: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PATCH", p+agent["id"].(string), key, map[string]any{"content": "late"}); r.Status != 409 {
		t.Fatalf("edit on a completed page: %d", r.Status)
	}
	e.Must(204, "DELETE", p+agent["id"].(string), key, nil)
	if n := len(e.Must(200, "GET", "/v1/pages/"+id+"/comments", "", nil)["comments"].([]any)); n != 0 {
		t.Fatalf("comments left: %d", n)
	}
}

// TestCommentsOfAuthenticatedPages: listing and writing need the owner's key.
func TestCommentsOfAuthenticatedPages(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	id := e.Publish(key, map[string]any{"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	if r := e.Do("POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "x"}); r.Status != 401 {
		t.Fatalf("anonymous comment: %d", r.Status)
	}
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "x"})
	if n := len(e.Must(200, "GET", "/v1/pages/"+id+"/comments", key, nil)["comments"].([]any)); n != 1 {
		t.Fatalf("owner list: %d", n)
	}
}
