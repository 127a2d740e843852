package web_test

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

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

// TestTruncationNoteIsVisible: a block that draws past its room (a table whose
// 600 empty rows × 100 columns ask for far more cells than its data pays for)
// shows the truncation note in the browser, inside the block, and the page around
// it is intact: the block after it is drawn.
func TestTruncationNoteIsVisible(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("truncated")
	cols, rows := []any{}, []any{}
	for i := range 100 {
		cols = append(cols, map[string]any{"key": fmt.Sprintf("c%d", i), "label": fmt.Sprintf("Column %d", i)})
	}
	for range 600 {
		rows = append(rows, map[string]any{})
	}
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "big", "type": "table", "data": map[string]any{"title": "Big table", "columns": cols, "rows": rows}},
		map[string]any{"id": "after", "type": "text", "data": map[string]any{"content": "The block after the cut one."}},
	}}))
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the page script", `document.querySelector("#live") && !document.querySelector("#live").hidden`)
	note := eval[struct {
		Visible bool
		Inside  bool
		Text    string
	}](tb, `(function(){var n=document.querySelector('#blk-big .truncated');if(!n)return {Visible:false,Inside:false,Text:""};
		var r=n.getBoundingClientRect();return {Visible:r.width>0&&r.height>0&&getComputedStyle(n).visibility!=="hidden",Inside:!!n.closest('[data-block-id="big"]'),Text:n.innerText}})()`)
	if !note.Visible || !note.Inside || !strings.Contains(note.Text, "Content truncated.") || !strings.Contains(note.Text, "Ask the agent") {
		t.Errorf("truncation note: %+v", note)
	}
	if got := tb.text(`#blk-after`); !strings.Contains(got, "The block after the cut one.") {
		t.Errorf("the block after the cut one: %q", got)
	}
	tb.shot("review-truncated-block")
}
