package web_test

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// TestReviewPageDrawsTheLatestCommentsAndPagesBack: a page with 300 comments draws
// the latest 50 (its count says 300), with a "Show older comments" link; following
// it (no JavaScript needed) draws the 50 before them, with links further back and
// to the latest. The comments part answers the same for the same cursor.
func TestReviewPageDrawsTheLatestCommentsAndPagesBack(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("chatty")
	id := publish(t, e, key, approvalPage(nil))
	for i := range 300 {
		e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": fmt.Sprintf("note-%03d", i)})
	}
	drawn := func(body []byte) []string {
		return regexp.MustCompile(`<p class="text">(note-\d{3})</p>`).FindAllString(string(body), -1)
	}
	older := regexp.MustCompile(`href="([^"]*comments_before=[^"]*)"[^>]*>Show older comments \((\d+)\)`)

	_, body := transferred(t, e.Srv.URL+"/p/"+id)
	got := drawn(body)
	if len(got) != 50 || !strings.Contains(got[0], "note-250") || !strings.Contains(got[49], "note-299") {
		t.Fatalf("the page draws %d comments (%v … %v), want note-250 … note-299", len(got), first(got), last(got))
	}
	if !strings.Contains(string(body), `<span class="count">300</span>`) {
		t.Errorf("the count does not say 300")
	}
	m := older.FindSubmatch(body)
	if m == nil || string(m[2]) != "250" {
		t.Fatalf("no \"Show older comments (250)\" link")
	}

	next := html.UnescapeString(string(m[1]))
	_, body = transferred(t, e.Srv.URL+next)
	got = drawn(body)
	if len(got) != 50 || !strings.Contains(got[0], "note-200") || !strings.Contains(got[49], "note-249") {
		t.Fatalf("%s draws %d comments (%v … %v), want note-200 … note-249", next, len(got), first(got), last(got))
	}
	if m := older.FindSubmatch(body); m == nil || string(m[2]) != "200" {
		t.Errorf("no link further back")
	}
	if !strings.Contains(string(body), "Show the latest comments") {
		t.Errorf("no link back to the latest")
	}
	// The live part for the same cursor draws the same window.
	cursor := next[strings.Index(next, "?"):strings.Index(next, "#")]
	_, part := transferred(t, e.Srv.URL+"/p/"+id+"/parts/comments"+cursor)
	if p := drawn(part); len(p) != 50 || p[0] != got[0] {
		t.Errorf("the comments part for %s draws %d comments from %v", cursor, len(p), first(p))
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
