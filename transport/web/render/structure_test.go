package render

// Tests of the structure group's containers and progressions (layout, group, tab,
// timeline, stepper, countdown), plus the helpers and previews the group's other
// test files (form_test.go, media_test.go, boards_test.go) share.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"folio/actors/model/blocks"
)

// stFixture reads a page of testdata/structure-<name>.json.
func stFixture(t testing.TB, name string) []blocks.Block {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "structure-"+name+".json"))
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

// stRender renders one block of type typ with data (JSON text) as a page and
// parses the output.
func stRender(t testing.TB, typ, data string, opt Options) (*html.Node, string) {
	t.Helper()
	return stRenderBlocks(t, []blocks.Block{{ID: "b1", Type: typ, Data: json.RawMessage(data)}}, opt)
}

func stRenderBlocks(t testing.TB, list []blocks.Block, opt Options) (*html.Node, string) {
	t.Helper()
	out := renderAll(t, list, opt)
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return doc, out
}

// stAll returns the elements for which pred holds, in document order.
func stAll(doc *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
	})
	return out
}

// stTag and stClass are the usual predicates.
func stTag(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

func stClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return hasClass(n, class) }
}

func stHas(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// stText is the text a person sees in n (visually hidden text included), with
// white space collapsed.
func stText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// stNoFallback fails when a block of the page was drawn by the generic view.
func stNoFallback(t *testing.T, doc *html.Node) {
	t.Helper()
	for _, n := range stAll(doc, stClass("blk-fallback")) {
		t.Errorf("block %s (%s) fell back to the generic view", attr(n, "id"), attr(n, "data-type"))
	}
}

// stSafe checks what the hostile-input tests promise: no script element, no event
// handler attribute, no style attribute (the CSP forbids them), and no address
// attribute that starts with javascript:, data: or vbscript:.
func stSafe(t *testing.T, doc *html.Node) {
	t.Helper()
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if n.Data == "script" || n.Data == "style" {
			t.Errorf("a <%s> element in the output", n.Data)
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") {
				t.Errorf("<%s %s=%q>: an event handler attribute", n.Data, a.Key, a.Val)
			}
			if k == "style" {
				t.Errorf("<%s style=%q>: an inline style", n.Data, a.Val)
			}
			switch k {
			case "href", "src", "action", "formaction", "poster", "data", "srcset", "xlink:href":
				v := strings.ToLower(strings.TrimSpace(a.Val))
				for _, bad := range []string{"javascript:", "data:", "vbscript:"} {
					if strings.HasPrefix(v, bad) {
						t.Errorf("<%s %s=%q>: an unsafe address", n.Data, a.Key, a.Val)
					}
				}
			}
		}
	})
}

// stHostile are the payloads the hostile tests put in every string field.
var stHostile = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	`data:text/html,<script>alert(1)</script>`,
	`vbscript:msgbox(1)`,
	`<svg onload=alert(1)><a xlink:href="javascript:alert(1)">x</a></svg>`,
	` JaVaScRiPt:alert(1)`,
	`'><iframe src=javascript:alert(1)>`,
}

// stFill replaces every string in a JSON template with payload: the hostile tests
// write realistic data once and fill each string field with each payload.
func stFill(t *testing.T, tmpl, payload string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(tmpl), &v); err != nil {
		t.Fatal(err)
	}
	var fill func(any) any
	fill = func(x any) any {
		switch y := x.(type) {
		case string:
			return payload
		case []any:
			for i := range y {
				y[i] = fill(y[i])
			}
		case map[string]any:
			for k := range y {
				if k == "type" && y["data"] != nil {
					continue // a nested block's type stays what it is
				}
				y[k] = fill(y[k])
			}
		}
		return x
	}
	b, err := json.Marshal(fill(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStructurePreview writes the structure fixtures as standalone pages into
// $FOLIO_PREVIEW_DIR (when set) and checks none of their blocks falls back.
func TestStructurePreview(t *testing.T) {
	for _, name := range []string{"containers", "form", "media", "boards", "progress"} {
		list := stFixture(t, name)
		doc, out := stRenderBlocks(t, list, testOptions())
		stNoFallback(t, doc)
		stSafe(t, doc)
		writePreview(t, "structure-"+name, out)
		ro := testOptions()
		ro.FormID, ro.Actions = "", nil
		_, out = stRenderBlocks(t, list, ro)
		writePreview(t, "structure-"+name+"-readonly", out)
	}
}

// ---- layout ----

func TestStructureLayoutSharesTheRowByWidth(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"fractions", `{"columns":[{"width":"2/3","blocks":[]},{"width":"1/3","blocks":[]}]}`, []string{"lay-g13", "lay-g7"}},
		{"percent and px", `{"columns":[{"width":"25%"},{"width":"660px"}]}`, []string{"lay-g5", "lay-g15"}},
		{"none given: equal", `{"columns":[{},{},{}]}`, []string{"lay-g6", "lay-g6", "lay-g6"}},
		{"some given: the rest share what is left", `{"columns":[{"width":"50%"},{},{}]}`, []string{"lay-g10", "lay-g5", "lay-g5"}},
		{"nothing left: equal shares", `{"columns":[{"width":"100%"},{"width":"nonsense"}]}`, []string{"lay-g20", "lay-g10"}},
		{"odd widths", `{"columns":[{"width":-3},{"width":"0/0"},{"width":1e400},{"width":true}]}`, []string{"lay-g5", "lay-g5", "lay-g5", "lay-g5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "layout", tc.data, testOptions())
			stNoFallback(t, doc)
			cols := stAll(doc, stClass("lay-col"))
			if len(cols) != len(tc.want) {
				t.Fatalf("%d columns, want %d", len(cols), len(tc.want))
			}
			for i, c := range cols {
				if !hasClass(c, tc.want[i]) {
					t.Errorf("column %d has class %q, want %s", i, attr(c, "class"), tc.want[i])
				}
			}
		})
	}
}

func TestStructureLayoutDrawsNestedBlocksInTheirColumns(t *testing.T) {
	doc, _ := stRender(t, "layout", `{"columns":[{"width":"1/2","blocks":[{"type":"stepper","data":{"title":"Left","steps":[{"label":"a"}]}}]},
		{"blocks":[{"type":"countdown","data":{"target":"2030-01-01T00:00:00Z"}},{"type":"future_type","data":{"note":"kept"}}]}]}`, testOptions())
	cols := stAll(doc, stClass("lay-col"))
	if len(cols) != 2 {
		t.Fatalf("%d columns", len(cols))
	}
	if got := stAll(cols[0], stClass("blk-stepper")); len(got) != 1 || attr(got[0], "id") != "blk-b1-c0-0" {
		t.Errorf("left column: %v", stText(cols[0]))
	}
	if got := stAll(cols[1], stClass("blk")); len(got) != 2 || !strings.Contains(stText(cols[1]), "kept") {
		t.Errorf("right column holds %d blocks: %s", len(got), stText(cols[1]))
	}
	if n := stAll(doc, func(n *html.Node) bool { return n.Data == "section" }); len(n) != 1 {
		t.Errorf("%d sections: nested blocks must be divs", len(n))
	}
}

// ---- group ----

func TestStructureGroup(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		details    bool
		open       bool
		summary    string
		boxHeader  bool
	}{
		{"collapsible, open", `{"title":"Why","collapsible":true,"blocks":[{"type":"stepper","data":{"steps":[{"label":"x"}]}}]}`, true, true, "Why", false},
		{"collapsible, collapsed", `{"title":"Raw","collapsible":true,"default_collapsed":true,"blocks":[]}`, true, false, "Raw", false},
		{"collapsible without title", `{"collapsible":true,"blocks":[]}`, true, true, "Details", false},
		{"plain", `{"title":"Plain","blocks":[{"type":"tree","data":{"nodes":[{"label":"n"}]}}]}`, false, false, "", true},
		{"wrong types", `{"title":"T","collapsible":"yes","default_collapsed":1,"blocks":{"x":1}}`, false, false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "group", tc.data, testOptions())
			stNoFallback(t, doc)
			details := stAll(doc, stClass("grp-d"))
			if (len(details) == 1) != tc.details {
				t.Fatalf("details: %d", len(details))
			}
			headings := stAll(doc, stClass("blk-title"))
			if tc.details {
				if stHas(details[0], "open") != tc.open {
					t.Errorf("open = %v, want %v", stHas(details[0], "open"), tc.open)
				}
				sum := stAll(details[0], stTag("summary"))
				if len(sum) != 1 || stText(sum[0]) != tc.summary {
					t.Errorf("summary %q, want %q", stText(sum[0]), tc.summary)
				}
				if len(headings) != 1 || headings[0].Parent.Data != "summary" {
					t.Errorf("the title must be drawn once, inside the summary")
				}
				if sec := stAll(doc, stTag("section")); stHas(sec[0], "aria-labelledby") {
					t.Errorf("the box still points at a heading it did not draw")
				}
			} else if tc.boxHeader && len(headings) != 1 {
				t.Errorf("a plain group shows its title in the box: %d headings", len(headings))
			}
		})
	}
}

// ---- tab ----

func TestStructureTabUsesTheCoreTabMarkup(t *testing.T) {
	doc, _ := stRender(t, "tab", `{"title":"Details","tabs":[{"label":"Board","blocks":[{"type":"tree","data":{"nodes":[{"label":"in board"}]}}]},{"label":"Files","blocks":[]},{"label":"","blocks":[]}]}`, testOptions())
	stNoFallback(t, doc)
	roots := stAll(doc, func(n *html.Node) bool { return stHas(n, "data-tabs") })
	if len(roots) != 1 || !hasClass(roots[0], "tabs") {
		t.Fatalf("want one [data-tabs].tabs root, got %d", len(roots))
	}
	list := stAll(roots[0], func(n *html.Node) bool { return attr(n, "role") == "tablist" })
	if len(list) != 1 || !stHas(list[0], "hidden") || attr(list[0], "aria-label") != "Details" {
		t.Fatalf("tablist must be hidden until the script runs, and named")
	}
	tabs := stAll(list[0], func(n *html.Node) bool { return attr(n, "role") == "tab" })
	panels := stAll(roots[0], func(n *html.Node) bool { return attr(n, "role") == "tabpanel" })
	if len(tabs) != 3 || len(panels) != 3 {
		t.Fatalf("%d tabs, %d panels", len(tabs), len(panels))
	}
	ids := map[string]bool{}
	for i, tab := range tabs {
		p := panels[i]
		if attr(tab, "aria-controls") != attr(p, "id") || attr(p, "aria-labelledby") != attr(tab, "id") {
			t.Errorf("tab %d and its panel do not point at each other", i)
		}
		if attr(tab, "type") != "button" {
			t.Errorf("tab %d is not a button", i)
		}
		if sel := attr(tab, "aria-selected"); sel != fmt.Sprint(i == 0) {
			t.Errorf("tab %d aria-selected=%s", i, sel)
		}
		h := stAll(p, stClass("tab-heading"))
		if len(h) != 1 || stText(h[0]) != stText(tab) {
			t.Errorf("panel %d has no heading repeating its label", i)
		}
		for _, id := range []string{attr(tab, "id"), attr(p, "id")} {
			if ids[id] {
				t.Errorf("duplicate id %s", id)
			}
			ids[id] = true
		}
	}
	if stText(tabs[2]) != "Tab 3" {
		t.Errorf("an unlabelled tab reads %q", stText(tabs[2]))
	}
	if !strings.Contains(stText(panels[0]), "in board") {
		t.Errorf("the first panel lost its nested block")
	}
}

func TestStructureTabsOfTwoBlocksDoNotCollide(t *testing.T) {
	tab := `{"tabs":[{"label":"A","blocks":[]},{"label":"B","blocks":[]}]}`
	doc, _ := stRenderBlocks(t, []blocks.Block{{ID: "x", Type: "tab", Data: json.RawMessage(tab)}, {ID: "y", Type: "tab", Data: json.RawMessage(tab)}}, testOptions())
	seen := map[string]bool{}
	for _, n := range stAll(doc, func(n *html.Node) bool { return attr(n, "id") != "" }) {
		if seen[attr(n, "id")] {
			t.Errorf("duplicate id %s", attr(n, "id"))
		}
		seen[attr(n, "id")] = true
	}
}

// ---- timeline ----

func TestStructureTimeline(t *testing.T) {
	doc, _ := stRender(t, "timeline", `{"events":[
		{"time":"2024-05-01T14:30:00Z","event":"Alert","detail":"p99 up","status":"completed","icon":"🔔"},
		{"time":"2024-05-01T14:35:12.5+02:00","event":"Mitigation","status":"current"},
		{"time":"2024-05-02","event":"Review","status":"pending"},
		{"time":"2024-02-29T23:59:60Z","event":"Leap"},
		{"time":"2024-05-01T14:30","event":"Local"},
		{"time":"soon","event":"Free text","status":"bogus"},
		{"event":"No time"}]}`, testOptions())
	stNoFallback(t, doc)
	evs := stAll(doc, stClass("tl-ev"))
	if len(evs) != 7 {
		t.Fatalf("%d events", len(evs))
	}
	for i, want := range []struct{ text, datetime, class string }{
		{"Completed: Alert 1 May 2024, 14:30 UTC p99 up", "2024-05-01T14:30:00Z", "tl-completed"},
		{"Mitigation Current 1 May 2024, 12:35:12 UTC", "2024-05-01T12:35:12Z", "tl-current"},
		{"Pending: Review 2 May 2024", "2024-05-02", "tl-pending"},
		{"Leap 29 Feb 2024, 23:59:59 UTC", "2024-02-29T23:59:59Z", ""},
		{"Local 1 May 2024, 14:30", "2024-05-01T14:30:00", ""},
		{"Free text soon", "", ""},
		{"No time", "", ""},
	} {
		if got := stText(evs[i]); got != want.text {
			t.Errorf("event %d reads %q, want %q", i, got, want.text)
		}
		times := stAll(evs[i], stTag("time"))
		if want.datetime == "" && len(times) != 0 || want.datetime != "" && (len(times) != 1 || attr(times[0], "datetime") != want.datetime) {
			t.Errorf("event %d: <time> %v, want datetime %q", i, times, want.datetime)
		}
		if want.class != "" && !hasClass(evs[i], want.class) {
			t.Errorf("event %d lacks %s", i, want.class)
		}
	}
	if len(stAll(evs[0], stTag("svg"))) != 1 {
		t.Errorf("the emoji icon was not mapped to an SVG icon")
	}
}

// ---- stepper ----

func TestStructureStepper(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		states     []string
		summary    string
	}{
		{"middle", `{"current":1,"steps":[{"label":"Build","description":"compile"},{"label":"Test"},{"label":"Ship"}]}`, []string{"done", "current", "todo"}, "Step 2 of 3"},
		{"first by default", `{"steps":[{"label":"a"},{"label":"b"}]}`, []string{"current", "todo"}, "Step 1 of 2"},
		{"past the end: all done", `{"current":7,"steps":[{"label":"a"},{"label":"b"}]}`, []string{"done", "done"}, "All 2 steps done"},
		{"negative", `{"current":-4,"steps":[{"label":"a"},{"label":"b"}]}`, []string{"current", "todo"}, "Step 1 of 2"},
		{"as a string", `{"current":"1","steps":[{"label":"a"},{"label":"b"}]}`, []string{"done", "current"}, "Step 2 of 2"},
		{"huge", `{"current":1e400,"steps":[{"label":"a"}]}`, []string{"current"}, "Step 1 of 1"},
		{"fraction", `{"current":1.7,"steps":[{"label":"a"},{"label":"b"},{"label":"c"}]}`, []string{"done", "current", "todo"}, "Step 2 of 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "stepper", tc.data, testOptions())
			stNoFallback(t, doc)
			steps := stAll(doc, stClass("stp-step"))
			if len(steps) != len(tc.states) {
				t.Fatalf("%d steps", len(steps))
			}
			for i, s := range steps {
				if !hasClass(s, "stp-"+tc.states[i]) {
					t.Errorf("step %d is %q, want %s", i, attr(s, "class"), tc.states[i])
				}
				if (attr(s, "aria-current") == "step") != (tc.states[i] == "current") {
					t.Errorf("step %d aria-current=%q", i, attr(s, "aria-current"))
				}
				word := map[string]string{"done": "Done:", "current": "Current step:", "todo": "Not started:"}[tc.states[i]]
				if !strings.Contains(stText(s), word) {
					t.Errorf("step %d does not say %q in words: %q", i, word, stText(s))
				}
			}
			if s := stAll(doc, stClass("stp-sum")); len(s) != 1 || stText(s[0]) != tc.summary {
				t.Errorf("summary %q, want %q", stText(s[0]), tc.summary)
			}
		})
	}
	// an erroneous value of "1e400" decodes as +Inf and is treated as past the end
}

// ---- countdown ----

func TestStructureCountdown(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	opt := testOptions()
	opt.Now = now
	for _, tc := range []struct {
		name, data string
		left       string // the remaining time shown; "" when expired
		expired    string
		class      string
		target     string
	}{
		{"days", `{"target":"2026-11-26T15:30:00Z","style":"info"}`, "2 days 3 hours", "", "cd-info", "2026-11-26T15:30:00Z"},
		{"minutes", `{"target":"2026-11-24T12:14:05Z","style":"danger"}`, "14 minutes 5 seconds", "", "cd-danger", "2026-11-24T12:14:05Z"},
		{"offset", `{"target":"2026-11-24T15:00:00+02:00","style":"warning"}`, "1 hour", "", "cd-warning", "2026-11-24T13:00:00Z"},
		{"zoneless is UTC", `{"target":"2026-11-24T13:00"}`, "1 hour", "", "cd-info", "2026-11-24T13:00:00Z"},
		{"far", `{"target":"9999-12-31T23:59:59Z"}`, "2,912,115 days 11 hours", "", "cd-info", "9999-12-31T23:59:59Z"},
		{"past, own message", `{"target":"2026-11-20T00:00:00Z","expired_message":"Freeze over","style":"nope"}`, "", "Freeze over", "cd-info", "2026-11-20T00:00:00Z"},
		{"past, default message", `{"target":"2026-11-24T12:00:00Z"}`, "", "Time is up", "cd-info", "2026-11-24T12:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "countdown", tc.data, opt)
			stNoFallback(t, doc)
			box := stAll(doc, stClass("cd"))[0]
			if !hasClass(box, tc.class) || attr(box, "data-target") != tc.target || !stHas(box, "data-countdown") {
				t.Errorf("box %q data-target=%q", attr(box, "class"), attr(box, "data-target"))
			}
			left := stAll(doc, stClass("cd-left"))[0]
			if attr(left, "aria-live") != "off" {
				t.Errorf("the ticking part must not be announced")
			}
			tm := stAll(left, stTag("time"))[0]
			if attr(tm, "datetime") != tc.target {
				t.Errorf("datetime %q", attr(tm, "datetime"))
			}
			status := stAll(doc, func(n *html.Node) bool { return attr(n, "role") == "status" })
			if len(status) != 1 || stText(status[0]) != tc.expired {
				t.Errorf("status %q, want %q", stText(status[0]), tc.expired)
			}
			if tc.left != "" {
				if stHas(left, "hidden") || stText(tm) != tc.left {
					t.Errorf("left %q, want %q", stText(tm), tc.left)
				}
			} else if !stHas(left, "hidden") {
				t.Errorf("an expired countdown still shows the time left")
			}
			if attr(box, "data-expired") != firstText(tc.expired, "Time is up") {
				t.Errorf("data-expired %q", attr(box, "data-expired"))
			}
		})
	}
}

func TestStructureCountdownWithoutAValidTarget(t *testing.T) {
	for _, data := range []string{`{"target":"tomorrow"}`, `{}`, `{"target":12}`, `{"target":"2026-13-45T99:00:00Z"}`} {
		doc, out := stRender(t, "countdown", data, testOptions())
		stNoFallback(t, doc)
		if stHas(stAll(doc, stClass("cd"))[0], "data-countdown") || !strings.Contains(out, "No valid target time") {
			t.Errorf("%s: %s", data, out)
		}
	}
}

// ---- odd data and hostile input for this file's types ----

func TestStructureOddDataNeverFallsBack(t *testing.T) {
	for typ, datas := range map[string][]string{
		"layout":    {`{}`, `null`, `{"columns":null}`, `{"columns":"x"}`, `{"columns":[null,1,"x",{"blocks":[null,{"type":5}]}]}`},
		"group":     {`{}`, `{"blocks":[{"type":"group","data":null}]}`, `{"title":["x"],"collapsible":true}`},
		"tab":       {`{}`, `{"tabs":[null,{"label":7,"blocks":"x"}]}`},
		"timeline":  {`{}`, `{"events":[null,{"time":1e400,"event":{}}]}`},
		"stepper":   {`{}`, `{"current":"NaN","steps":[null,{"label":null}]}`, `{"current":2,"steps":[]}`},
		"countdown": {`{"target":"2024-02-29T23:59:60Z"}`, `{"target":null,"style":["x"]}`},
	} {
		for _, data := range datas {
			doc, _ := stRender(t, typ, data, testOptions())
			stNoFallback(t, doc)
		}
	}
}

func TestStructureHugeListsAreBounded(t *testing.T) {
	many := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	for _, tc := range []struct{ typ, data, note string }{
		{"timeline", `{"events":` + many(maxItems+50, `{"event":"e","time":"2024-01-01"}`) + `}`, "50 more events not shown."},
		{"stepper", `{"steps":` + many(maxItems+3, `{"label":"s"}`) + `}`, "3 more steps not shown."},
		{"tab", `{"tabs":` + many(maxItems+1, `{"label":"t"}`) + `}`, "1 more tabs not shown."},
		{"layout", `{"columns":` + many(maxItems+2, `{}`) + `}`, "2 more columns not shown."},
	} {
		doc, out := stRender(t, tc.typ, tc.data, testOptions())
		stNoFallback(t, doc)
		if !noteOrCut(out, tc.note) {
			t.Errorf("%s: no note %q", tc.typ, tc.note)
		}
		if len(out) > 600*maxItems {
			t.Errorf("%s: %d bytes for %d items", tc.typ, len(out), maxItems)
		}
	}
}

func TestStructureDeepNestingIsBounded(t *testing.T) {
	data := `{"type":"text","data":{"content":"bottom"}}`
	for i := 0; i < 40; i++ {
		switch i % 3 {
		case 0:
			data = `{"type":"group","data":{"title":"g","collapsible":true,"blocks":[` + data + `]}}`
		case 1:
			data = `{"type":"layout","data":{"columns":[{"blocks":[` + data + `]}]}}`
		default:
			data = `{"type":"tab","data":{"tabs":[{"label":"t","blocks":[` + data + `]}]}}`
		}
	}
	var b blocks.Block
	if err := json.Unmarshal([]byte(data), &b); err != nil {
		t.Fatal(err)
	}
	b.ID = "deep"
	var buf bytes.Buffer
	Page(&buf, []blocks.Block{b}, testOptions())
	if !strings.Contains(buf.String(), "Nested too deeply to show.") || buf.Len() > 50_000 {
		t.Errorf("%d bytes; note present: %v", buf.Len(), strings.Contains(buf.String(), "Nested too deeply"))
	}
}

func TestStructureHostileInputIsInert(t *testing.T) {
	for typ, tmpl := range map[string]string{
		"layout":    `{"title":"t","columns":[{"width":"1/2","blocks":[{"type":"stepper","data":{"title":"s","steps":[{"label":"l","description":"d"}]}}]}]}`,
		"group":     `{"title":"t","collapsible":true,"blocks":[{"type":"timeline","data":{"events":[{"time":"t","event":"e","detail":"d","status":"current","icon":"i"}]}}]}`,
		"tab":       `{"title":"t","tabs":[{"label":"l","blocks":[{"type":"countdown","data":{"target":"x","expired_message":"m","style":"s"}}]}]}`,
		"timeline":  `{"title":"t","events":[{"time":"t","event":"e","detail":"d","status":"s","icon":"i"}]}`,
		"stepper":   `{"title":"t","current":"c","steps":[{"label":"l","description":"d"}]}`,
		"countdown": `{"title":"t","target":"x","expired_message":"m","style":"s"}`,
	} {
		for _, p := range stHostile {
			doc, out := stRender(t, typ, stFill(t, tmpl, p), testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
			if strings.Contains(out, "<script>window") {
				t.Errorf("%s: payload survived unescaped", typ)
			}
		}
	}
	// A hostile expired message once the countdown has passed, and a hostile group title.
	doc, _ := stRender(t, "countdown", `{"target":"2000-01-01T00:00:00Z","expired_message":"<img src=x onerror=alert(1)>"}`, testOptions())
	stSafe(t, doc)
	if s := stAll(doc, func(n *html.Node) bool { return attr(n, "role") == "status" }); stText(s[0]) != "<img src=x onerror=alert(1)>" {
		t.Errorf("the message is not shown as text: %q", stText(s[0]))
	}
}
