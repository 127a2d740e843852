package render

// Tests of the prose blocks (text, rich_text, callout, thread, divider), the text
// group's preview page, and the hostile-input and odd-data tests of the whole
// group (text, rich_text, callout, code, diff, thread, logs, key_value, table,
// divider).

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"folio/actors/model/blocks"
)

// txTypes are the block types of the text group.
var txTypes = []string{"text", "rich_text", "callout", "code", "diff", "thread", "logs", "key_value", "table", "divider"}

func txFixture(t testing.TB) []blocks.Block {
	t.Helper()
	raw, err := os.ReadFile("testdata/text-blocks.json")
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

// TestTextGroupFixtureRenders draws testdata/text-blocks.json (every type of the
// group in its variants) and writes it as text-blocks.html for a person to look at
// when FOLIO_PREVIEW_DIR is set.
func TestTextGroupFixtureRenders(t *testing.T) {
	list := txFixture(t)
	out := renderAll(t, list, testOptions())
	writePreview(t, "text-blocks", out)
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	seen := map[string]bool{}
	for _, n := range txFind(doc, txByClass("blk")) {
		seen[attr(n, "data-type")] = true
	}
	for _, typ := range txTypes {
		if !seen[typ] {
			t.Errorf("no %s block drawn", typ)
		}
	}
}

func TestTextRendersMarkdownSafely(t *testing.T) {
	out := txRender(t, "text", `{"title":"Intro","content":"Some **bold** and [a link](https://example.com/x).\n\n<script>alert(1)</script>"}`)
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	md := txFind(doc, txByClass("md"))
	if len(md) != 1 || md[0].Data != "div" {
		t.Fatalf("want one div.md, got %d in %s", len(md), out)
	}
	if len(txFind(md[0], txByTag("strong"))) != 1 {
		t.Errorf("bold not rendered: %s", out)
	}
	links := txFind(md[0], txByTag("a"))
	if len(links) != 1 || attr(links[0], "href") != "https://example.com/x" || !strings.Contains(attr(links[0], "rel"), "noopener") ||
		!strings.Contains(attr(links[0], "rel"), "noreferrer") {
		t.Errorf("link not safe: %s", out)
	}
	if h := txFind(doc, txByClass("blk-title")); len(h) != 1 || txText(h[0]) != "Intro" {
		t.Errorf("the box's title is missing: %s", out)
	}
	if strings.Contains(out, "<script") {
		t.Errorf("raw HTML passed through: %s", out)
	}
	if out := txRender(t, "text", `{}`); !strings.Contains(out, "No text.") {
		t.Errorf("empty text says nothing: %s", out)
	}
}

func TestRichText(t *testing.T) {
	cases := []struct {
		name, data string
		details    bool
		summary    string
	}{
		{"collapsible with a title", `{"title":"Notes","content":"## Heading\n**bold** _it_ ` + "`code`" + `","collapsible":true}`, true, "Notes"},
		{"collapsible without a title", `{"content":"x","collapsible":"true"}`, true, "Details"},
		{"not collapsible", `{"title":"Notes","content":"**bold**"}`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := txRender(t, "rich_text", tc.data)
			txNoFallback(t, out)
			doc := txParse(t, out)
			det := txFind(doc, txByTag("details"))
			if !tc.details {
				if len(det) != 0 || len(txFind(doc, txByClass("md"))) != 1 {
					t.Fatalf("want plain Markdown, got %s", out)
				}
				return
			}
			if len(det) != 1 {
				t.Fatalf("want one details, got %s", out)
			}
			if _, open := txAttr(det[0], "open"); !open {
				t.Errorf("collapsible rich text must start expanded: %s", out)
			}
			sum := txFind(det[0], txByTag("summary"))
			if len(sum) != 1 || strings.TrimSpace(txText(sum[0])) != tc.summary {
				t.Fatalf("summary wrong, want %q: %s", tc.summary, out)
			}
			// The title is drawn once, in the summary, not again by the box.
			if n := strings.Count(out, ">"+tc.summary+"<"); n != 1 {
				t.Errorf("title drawn %d times: %s", n, out)
			}
			if tc.summary == "Notes" && len(txFind(det[0], txByTag("strong"))) != 1 {
				t.Errorf("Markdown not rendered: %s", out)
			}
		})
	}
}

func TestCallout(t *testing.T) {
	cases := []struct {
		name, data string
		class      string
		label      string
		text       string
		details    bool
	}{
		{"warning with title", `{"title":"Heads up","content":"Deploy at **5pm**","style":"warning","icon":"⚠️"}`, "callout-warning", "Warning: ", "Deploy at 5pm", false},
		{"default style is info", `{"content":"plain","icon":null}`, "callout-info", "Note: ", "plain", false},
		{"older message field", `{"message":"from message","style":"error"}`, "callout-error", "Error: ", "from message", false},
		{"content wins over message", `{"content":"from content","message":"old","style":"success"}`, "callout-success", "Success: ", "from content", false},
		{"unknown style and icon", `{"content":"x","style":"purple","icon":"no-such-icon"}`, "callout-info", "Note: ", "x", false},
		{"collapsible", `{"title":"More","content":"hidden text","style":"warning","collapsible":true}`, "callout-warning", "Warning: ", "hidden text", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := txRender(t, "callout", tc.data)
			txNoFallback(t, out)
			doc := txParse(t, out)
			txNoInline(t, doc)
			box := txFind(doc, txByClass("callout"))
			if len(box) != 1 || !hasClass(box[0], tc.class) || attr(box[0], "role") != "note" {
				t.Fatalf("want one role=note .%s, got %s", tc.class, out)
			}
			if len(txFind(box[0], txByTag("svg"))) == 0 {
				t.Errorf("no icon: %s", out)
			}
			said := false
			for _, n := range txFind(box[0], txByClass("visually-hidden")) {
				said = said || txText(n) == tc.label
			}
			if !said {
				t.Errorf("the style is not said in words (%q): %s", tc.label, out)
			}
			if !strings.Contains(txText(box[0]), tc.text) {
				t.Errorf("text %q missing: %s", tc.text, out)
			}
			if len(txFind(doc, txByClass("blk-title"))) != 0 {
				t.Errorf("the box drew the title outside the callout: %s", out)
			}
			det := txFind(box[0], txByTag("details"))
			if tc.details {
				if len(det) != 1 {
					t.Fatalf("collapsible callout without details: %s", out)
				}
				if _, open := txAttr(det[0], "open"); !open {
					t.Errorf("collapsible callout must start open: %s", out)
				}
			} else if len(det) != 0 {
				t.Errorf("details on a callout that does not collapse: %s", out)
			}
		})
	}
	// The agent's icon is used when known, else the style's.
	rocket := txRender(t, "callout", `{"content":"x","icon":"rocket","style":"success"}`)
	success := txRender(t, "callout", `{"content":"x","style":"success"}`)
	if rocket == success || !strings.Contains(string(Icon("rocket")), "M12 15c") || !strings.Contains(rocket, "M12 15c") {
		t.Errorf("the agent's icon is not drawn")
	}
}

func TestThread(t *testing.T) {
	out := txRender(t, "thread", `{"title":"Review","messages":[
		{"author":"Ada Lovelace","avatar":"AL","time":"2024-05-01T10:00:00Z","content":"Looks **good**"},
		{"author":"Bot","avatar":"https://example.com/bot.png","time":"10:05","content":"Thanks"},
		{"author":"Eve Doe","avatar":"javascript:alert(1)","content":"hi"},
		{"avatar":"","time":"2024-05-02","content":"anonymous"}]}`)
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	items := txFind(doc, txByTag("li"))
	if len(items) != 4 {
		t.Fatalf("want 4 messages, got %d: %s", len(items), out)
	}
	imgs := txFind(doc, txByTag("img"))
	if len(imgs) != 1 || attr(imgs[0], "src") != "https://example.com/bot.png" {
		t.Fatalf("want one avatar image: %s", out)
	}
	if alt, ok := txAttr(imgs[0], "alt"); !ok || alt != "" {
		t.Errorf("the avatar is decorative (the name is beside it): alt=%q", alt)
	}
	wantInitials := []string{"AL", "", "ED", "?"}
	for i, li := range items {
		av := txFind(li, txByClass("th-av"))
		if len(av) != 1 || attr(av[0], "aria-hidden") != "true" {
			t.Fatalf("message %d: no hidden avatar", i)
		}
		if got := strings.TrimSpace(txText(av[0])); got != wantInitials[i] {
			t.Errorf("message %d: initials %q, want %q", i, got, wantInitials[i])
		}
	}
	times := txFind(doc, txByTag("time"))
	if len(times) != 2 || attr(times[0], "datetime") != "2024-05-01T10:00:00Z" || txText(times[0]) != "2024-05-01T10:00:00Z" ||
		attr(times[1], "datetime") != "2024-05-02" {
		t.Errorf("ISO times must be <time datetime>: %s", out)
	}
	if !strings.Contains(txText(items[1]), "10:05") {
		t.Errorf("a free-text time is shown as given: %s", out)
	}
	if !strings.Contains(txText(items[3]), "Unknown") {
		t.Errorf("a message without author names nobody: %s", out)
	}
	if len(txFind(items[0], txByTag("strong"))) != 1 {
		t.Errorf("content is Markdown: %s", out)
	}
}

func TestDivider(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"style":"dashed","spacing":"large"}`, "dv dv-dashed dv-large"},
		{`{}`, "dv dv-solid dv-medium"},
		{`{"style":"wavy","spacing":7}`, "dv dv-solid dv-medium"},
		{`{"style":"dotted","spacing":"small"}`, "dv dv-dotted dv-small"},
	} {
		out := txRender(t, "divider", tc.data)
		doc := txParse(t, out)
		hr := txFind(doc, txByTag("hr"))
		if len(hr) != 1 || attr(hr[0], "class") != tc.want {
			t.Errorf("%s: want <hr class=%q>, got %s", tc.data, tc.want, out)
		}
	}
	out := txRender(t, "divider", `{"title":"Appendix","style":"dotted"}`)
	doc := txParse(t, out)
	if len(txFind(doc, txByClass("dv-titled"))) != 1 || len(txFind(doc, txByClass("blk-title"))) != 0 || !strings.Contains(out, ">Appendix</h2>") {
		t.Errorf("a titled divider shows its title on the rule: %s", out)
	}
}

// txHostile is every payload of the hostile-input test.
var txHostile = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	` JaVaScRiPt:alert(1)`,
	`data:text/html,<script>alert(1)</script>`,
	`vbscript:msgbox(1)`,
	`<svg onload=alert(1)><script>alert(1)</script></svg>`,
	`[click](javascript:alert(1)) ![x](javascript:alert(1)) <a href="javascript:alert(1)">a</a>`,
	`'><svg/onload=alert(1)>`,
	`</code></pre><script>alert(1)</script>`,
}

// txHostileData puts payload p in every string field of each type of the group.
func txHostileData(p string) map[string]string {
	j, _ := json.Marshal(p)
	r := strings.NewReplacer("P", string(j))
	return map[string]string{
		"text":      r.Replace(`{"title":P,"content":P}`),
		"rich_text": r.Replace(`{"title":P,"content":P,"collapsible":true}`),
		"callout":   r.Replace(`{"title":P,"content":P,"message":P,"style":P,"icon":P,"collapsible":true}`),
		"code":      r.Replace(`{"title":P,"content":P,"language":P,"line_numbers":true,"highlight_lines":[1],"max_height":P}`),
		"diff":      r.Replace(`{"title":P,"old_text":P,"new_text":"x\n","language":"html","old_label":P,"new_label":P,"view_mode":"split","items":[{"label":P,"old":1,"new":2,"unit":P}]}`),
		"thread":    r.Replace(`{"title":P,"messages":[{"author":P,"avatar":P,"time":P,"content":P}]}`),
		"logs":      r.Replace(`{"title":P,"lines":[{"time":P,"level":P,"message":P}],"max_height":P,"auto_scroll":true}`),
		"key_value": r.Replace(`{"title":P,"layout":P,"pairs":[{"key":P,"value":P,"style":P,"badge":P}]}`),
		"table":     r.Replace(`{"title":P,"columns":[{"key":"a","label":P,"width":P,"align":P}],"rows":[{"a":P}],"sortable":true,"max_rows":1,"footer":P}`),
		"divider":   r.Replace(`{"title":P,"style":P,"spacing":P}`),
	}
}

func TestTextGroupEscapesHostileInput(t *testing.T) {
	for _, p := range txHostile {
		for typ, data := range txHostileData(p) {
			if !json.Valid([]byte(data)) {
				t.Fatalf("test data is not JSON: %s", data)
			}
			out := txRender(t, typ, data)
			txNoFallback(t, out)
			doc := txParse(t, out)
			walk(doc, func(n *html.Node) {
				if n.Type != html.ElementNode {
					return
				}
				if n.Data == "script" {
					t.Errorf("%s with %q: a <script> element", typ, p)
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") {
						t.Errorf("%s with %q: attribute %s on <%s>", typ, p, a.Key, n.Data)
					}
					switch a.Key {
					case "href", "src", "action", "formaction", "poster", "xlink:href", "srcset":
						v := strings.ToLower(strings.TrimSpace(a.Val))
						for _, bad := range []string{"javascript:", "data:", "vbscript:"} {
							if strings.HasPrefix(v, bad) {
								t.Errorf("%s with %q: %s=%q", typ, p, a.Key, a.Val)
							}
						}
					case "style":
						t.Errorf("%s with %q: inline style", typ, p)
					}
				}
				if n.Data == "svg" && attr(n, "class") != "icon" {
					t.Errorf("%s with %q: an <svg> that is not one of our icons", typ, p)
				}
			})
		}
	}
}

// txOdd are data that are not what the catalog says, for every type of the group.
var txOdd = map[string][]string{
	"text":      {`{"content":123}`, `{"content":{"a":1}}`, `{"content":null}`, `{"content":["x"]}`},
	"rich_text": {`{"content":true,"collapsible":"yes"}`, `{"collapsible":{}}`, `{"content":1e400}`},
	"callout":   {`{"style":5,"icon":[],"collapsible":null}`, `{"message":{"x":1}}`, `{"content":"","message":""}`},
	"code": {`{"content":42,"language":{},"line_numbers":"true","highlight_lines":"1","max_height":-5}`,
		`{"content":"a\nb","highlight_lines":[0,-1,1e400,"2",null,{},999999999999],"max_height":"1e400px"}`,
		`{"content":"\n\n\n","line_numbers":true}`, `{"content":"x\r\ny\r\n","language":"python"}`},
	"diff": {`{"old_text":5,"new_text":null}`, `{"items":[{"label":null,"old":"abc","new":1e400},{"old":0,"new":0},{"old":0,"new":-2},null,7]}`,
		`{"old_text":"","new_text":""}`, `{"old_text":"same\n","new_text":"same"}`, `{"items":"x","view_mode":9}`,
		`{"old_text":"a","new_text":"b","items":[{"label":"n","old":1,"new":2}]}`},
	"thread":    {`{"messages":[null,1,"x",{"author":5,"avatar":7,"time":{},"content":[]}]}`, `{"messages":{}}`},
	"logs":      {`{"lines":[null,1,{"level":5,"message":{"x":1},"time":[]}],"max_height":"abc"}`, `{"lines":"x"}`, `{"lines":[]}`},
	"key_value": {`{"pairs":[null,{"key":null,"value":{"a":1}},{"key":"k","value":[1],"badge":5,"style":true}],"layout":7}`, `{"pairs":{}}`},
	"table": {`{"columns":[null,{"key":5},{"key":"a","width":-3,"align":7}],"rows":[null,5,"x",[1,2],{"a":{"b":1}},{"a":1e400}],"max_rows":-1}`,
		`{"rows":[{"x":1,"y":"two"},{"z":null}]}`, `{"columns":"x","rows":{},"max_rows":1e400}`, `{"columns":[{"key":"a"}],"rows":[],"max_rows":0}`},
	"divider": {`{"style":null,"spacing":[]}`},
}

func TestTextGroupSurvivesOddData(t *testing.T) {
	for typ, list := range txOdd {
		for _, data := range append(list, `{}`, `[]`, `"x"`, `null`, `7`) {
			if !json.Valid([]byte(data)) {
				t.Fatalf("test data is not JSON: %s", data)
			}
			out := txRender(t, typ, data)
			if !strings.Contains(out, `data-type="`+typ+`"`) {
				t.Errorf("%s %s: not drawn: %s", typ, data, out)
			}
			if strings.HasPrefix(strings.TrimSpace(data), "{") {
				txNoFallback(t, out)
			}
			txNoInline(t, txParse(t, out))
		}
	}
}

// Huge lists are cut at maxItems with a note, so the output stays bounded.
func TestTextGroupBoundsHugeLists(t *testing.T) {
	n := 5000
	var msgs, lines, pairs, rows, items []string
	for i := range n {
		msgs = append(msgs, `{"author":"a","content":"m"}`)
		lines = append(lines, `{"level":"info","message":"l`+strconv.Itoa(i)+`"}`)
		pairs = append(pairs, `{"key":"k","value":1}`)
		rows = append(rows, `{"a":1}`)
		items = append(items, `{"label":"x","old":1,"new":2}`)
	}
	cases := []struct{ typ, data, note string }{
		{"thread", `{"messages":[` + strings.Join(msgs, ",") + `]}`, "4000 more messages not shown."},
		{"logs", `{"lines":[` + strings.Join(lines, ",") + `]}`, "4000 earlier lines not shown"},
		{"key_value", `{"pairs":[` + strings.Join(pairs, ",") + `]}`, "4000 more values not shown."},
		{"table", `{"columns":[{"key":"a"}],"rows":[` + strings.Join(rows, ",") + `]}`, "4000 more rows not shown."},
		{"diff", `{"items":[` + strings.Join(items, ",") + `]}`, "4000 more items not shown."},
	}
	for _, tc := range cases {
		out := txRender(t, tc.typ, tc.data)
		if !strings.Contains(out, tc.note) {
			t.Errorf("%s: no note %q", tc.typ, tc.note)
		}
		if len(out) > 600_000 {
			t.Errorf("%s: %d bytes for %d items", tc.typ, len(out), n)
		}
	}
	// The newest log lines are the ones kept.
	out := txRender(t, "logs", `{"lines":[`+strings.Join(lines, ",")+`]}`)
	if !strings.Contains(out, ">l4999<") || strings.Contains(out, ">l3999<") {
		t.Errorf("logs must keep the last lines")
	}
	// Many columns and rows of empty objects do not multiply into millions of cells.
	var cols []string
	for i := range 1000 {
		cols = append(cols, `{"key":"c`+strconv.Itoa(i)+`"}`)
	}
	empty := strings.TrimSuffix(strings.Repeat(`{},`, 1000), ",")
	out = txRender(t, "table", `{"columns":[`+strings.Join(cols, ",")+`],"rows":[`+empty+`]}`)
	if cells := strings.Count(out, "<td"); cells > tableMaxCells+10 {
		t.Errorf("%d cells drawn", cells)
	}
	if !noteOrCut(out, "900 more columns not shown.") {
		t.Errorf("no note on the columns cut")
	}
}

// Deeply nested values where the catalog expects text are drawn as empty, quickly.
func TestTextGroupSurvivesDeepNesting(t *testing.T) {
	deep := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	for typ, data := range map[string]string{
		"table":     `{"columns":[{"key":"a"}],"rows":[{"a":` + deep + `}]}`,
		"key_value": `{"pairs":[{"key":"k","value":` + deep + `}]}`,
		"text":      `{"content":` + deep + `}`,
		"thread":    `{"messages":[{"author":` + deep + `,"content":"x"}]}`,
		"rich_text": `{"content":"` + strings.Repeat("> ", 2000) + `deep"}`,
	} {
		out := txRender(t, typ, data)
		if len(out) > 200_000 {
			t.Errorf("%s: %d bytes", typ, len(out))
		}
	}
}

func txAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// TestMarkdownHeadingsStartBelowTheBlocksOwnHeading: an agent's "# Heading" is one
// level under the heading it falls under: under a top-level block's title (h2) it
// is an h3; in an untitled top-level block (under the page's h1) an h2; in a titled
// block nested in a titled group an h4; capped at h6. Read in page order, headings
// never skip a level (before, "#" was always an h3, so an untitled block jumped
// from h1 to h3, and a nested block's "#" sat at its own title's level).
func TestMarkdownHeadingsStartBelowTheBlocksOwnHeading(t *testing.T) {
	md := `"content":"# One\n\n## Two\n\n### Three"`
	page := []blocks.Block{
		{ID: "t1", Type: "text", Data: json.RawMessage(`{"title":"Titled",` + md + `}`)},
		{ID: "t2", Type: "text", Data: json.RawMessage(`{` + md + `}`)},
		{ID: "g1", Type: "group", Data: json.RawMessage(`{"title":"Group","blocks":[
			{"id":"n1","type":"rich_text","data":{"title":"Nested",` + md + `}},
			{"id":"n2","type":"callout","data":{"title":"Careful","style":"warning",` + md + `}},
			{"id":"n3","type":"thread","data":{"messages":[{"author":"Ann",` + md + `}]}},
			{"id":"n4","type":"rich_text","data":{"collapsible":true,` + md + `}}]}`)},
	}
	doc := txParse(t, renderAll(t, page, testOptions()))
	levels := func(root *html.Node) []int {
		var out []int
		for _, h := range txFind(root, func(n *html.Node) bool {
			return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
		}) {
			out = append(out, int(h.Data[1]-'0'))
		}
		return out
	}
	mdLevels := func(id string) []int {
		var md []int
		for _, b := range txFind(doc, func(n *html.Node) bool { return attr(n, "id") == id }) {
			for _, d := range txFind(b, txByClass("md")) {
				md = append(md, levels(d)...)
			}
		}
		return md
	}
	for id, want := range map[string][]int{
		"blk-t1":     {3, 4, 5}, // under the title's h2
		"blk-t2":     {2, 3, 4}, // untitled: under the page's h1
		"blk-g1-g-0": {4, 5, 6}, // under the group's h2 and its own h3
		"blk-g1-g-1": {4, 5, 6}, // the callout's own title is an h3
		"blk-g1-g-2": {3, 4, 5}, // an untitled thread in the group: under the group's h2
		"blk-g1-g-3": {4, 5, 6}, // under the collapsible's summary heading (h3)
	} {
		if got := mdLevels(id); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Markdown headings at h%v, want h%v", id, got, want)
		}
	}
	prev := 1 // the page's own h1
	for _, l := range levels(doc) {
		if l > prev+1 {
			t.Errorf("headings skip from h%d to h%d: %v", prev, l, levels(doc))
			break
		}
		prev = l
	}
	if got := levels(txParse(t, string(markdownAt(6, "# a\n\n## b\n\n###### c")))); fmt.Sprint(got) != "[6 6 6]" {
		t.Errorf("capped at h6: h%v", got)
	}
}
