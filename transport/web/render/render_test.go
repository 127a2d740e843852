package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"folio/actors/model/blocks"
)

// fixture is a page holding every catalog block type, the second form of the types
// that have two, and edge cases (testdata/all-blocks.json).
func fixture(t testing.TB) []blocks.Block {
	t.Helper()
	raw, err := os.ReadFile("testdata/all-blocks.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Blocks []blocks.Block `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p.Blocks
}

func testOptions() Options {
	return Options{PageID: "pg_test", FormID: "decide", Actions: map[string]bool{"approve": true, "reject": true},
		Now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
}

func renderAll(t testing.TB, list []blocks.Block, opt Options) string {
	t.Helper()
	var buf bytes.Buffer
	Page(&buf, list, opt)
	return buf.String()
}

// writePreview writes a standalone page of the rendering (CSS and JS inline, no CSP)
// into $FOLIO_PREVIEW_DIR when that is set, for a person to open in a browser.
func writePreview(t *testing.T, name, body string) {
	dir := os.Getenv("FOLIO_PREVIEW_DIR")
	if dir == "" {
		return
	}
	page := "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content='width=device-width,initial-scale=1'><title>" + name +
		"</title><style>body{font-family:var(--sans);background:var(--surface);color:var(--fg);max-width:880px;margin:1rem auto;padding:0 1rem}</style><style>" +
		string(Stylesheet()) + "</style></head><body><main>" + body + "</main><script>" + string(Script()) + "</script></body></html>"
	if err := os.WriteFile(filepath.Join(dir, name+".html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEveryCatalogTypeHasItsOwnView(t *testing.T) {
	for _, typ := range blocks.Types() {
		if views[typ] == nil {
			t.Errorf("block type %q has no view: it would be shown generically", typ)
		}
	}
}

func TestEveryBlockOfTheFixtureRendersWithItsOwnView(t *testing.T) {
	list := fixture(t)
	out := renderAll(t, list, testOptions())
	writePreview(t, "all-blocks", out)
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && hasClass(n, "blk") {
			seen[attr(n, "data-type")] = true
			if hasClass(n, "blk-fallback") {
				t.Errorf("block %s (%s) fell back to the generic view", attr(n, "id"), attr(n, "data-type"))
			}
		}
	})
	for _, typ := range blocks.Types() {
		if !seen[typ] {
			t.Errorf("no %s block in the output", typ)
		}
	}
	if strings.Contains(out, `{&#34;`) || strings.Contains(out, `{"`) {
		t.Errorf("the output holds a JSON dump")
	}
}

func TestUnknownTypesShowTheirFieldsAsADefinitionList(t *testing.T) {
	out := renderAll(t, []blocks.Block{{ID: "u1", Type: "future_thing", Data: json.RawMessage(`{"expired_message":"Gone","items":[1,{"deep":"x"}]}`)}}, testOptions())
	for _, want := range []string{"<dt>Expired message</dt>", "<span class=\"val\">Gone</span>", "<dt>Deep</dt>"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %s", want, out)
		}
	}
}

func TestDeepGenericDataIsBounded(t *testing.T) {
	deep := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	out := renderAll(t, []blocks.Block{{ID: "d", Type: "future", Data: json.RawMessage(`{"x":` + deep + `}`)}}, testOptions())
	if len(out) > 10_000 {
		t.Fatalf("5,000 levels of nesting drew %d bytes", len(out))
	}
}

func TestSafeURLKeepsOnlyWebAndMailAddresses(t *testing.T) {
	for in, want := range map[string]bool{
		"https://example.com/a?b=c": true, "http://x.y": true, "mailto:a@b.c": true, "/v1/pages/p/files/f": true,
		"javascript:alert(1)": false, "JaVaScRiPt:alert(1)": false, " javascript:alert(1)": false, "java\tscript:alert(1)": false,
		"data:text/html,<script>": false, "data:image/png;base64,AAAA": false, "vbscript:msgbox": false,
		"//evil.example/x": false, "/\\evil.example": false, "file:///etc/passwd": false, "https:/nohost": false, "": false,
	} {
		if _, ok := safeURL(in); ok != want {
			t.Errorf("SafeURL(%q) ok = %v, want %v", in, ok, want)
		}
	}
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// TestCachedBlocksAreDrawnOnceAndExactlyTheSame: with a cache, a page drawn again
// is byte for byte the page drawn the first time; a block whose data changed, or a
// page whose actions changed, is drawn anew.
func TestCachedBlocksAreDrawnOnceAndExactlyTheSame(t *testing.T) {
	list := fixture(t)
	opt := testOptions()
	cache := &mapCache{m: map[string][]byte{}}
	plain := renderAll(t, list, opt)
	opt.Cache = cache
	first := renderAll(t, list, opt)
	second := renderAll(t, list, opt)
	if first != plain || second != plain {
		t.Fatal("a cached page differs from the page drawn without a cache")
	}
	kept := len(cache.m)
	if kept < len(list)-5 {
		t.Fatalf("only %d of %d blocks were kept", kept, len(list))
	}
	changed := append([]blocks.Block(nil), list...)
	changed[4].Data = json.RawMessage(`{"title":"Intro","content":"Changed text"}`)
	if out := renderAll(t, changed, opt); !strings.Contains(out, "Changed text") {
		t.Fatal("a changed block was served from the cache")
	}
	readOnly := opt
	readOnly.FormID, readOnly.Actions = "", nil
	if out := renderAll(t, list, readOnly); strings.Contains(out, `form="decide"`) {
		t.Fatal("a page that takes no input now was drawn from the blocks of one that did")
	}
}

// noteOrCut: a huge list ends with its own "N more … not shown" note, or, when it
// is larger than the block's room (limits.go), with the truncation note.
func noteOrCut(out, note string) bool {
	return strings.Contains(out, note) || strings.Contains(out, "Content truncated.")
}
