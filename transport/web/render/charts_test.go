package render

// Tests of the chart-like blocks (chart, sparkline, gauge, funnel, heatmap,
// progress) as a person and a screen reader meet them, of hostile input in every
// string field, and of odd data. Metric blocks are in metric_test.go.

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"folio/actors/model/blocks"
)

// chartsFixture is a page of realistic chart-like blocks (testdata/charts-blocks.json).
func chartsFixture(t testing.TB) []blocks.Block {
	t.Helper()
	raw, err := os.ReadFile("testdata/charts-blocks.json")
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

// chRender renders one top-level block and parses the output.
func chRender(t *testing.T, typ, data string) (string, *html.Node) {
	t.Helper()
	out := renderAll(t, []blocks.Block{{ID: "b1", Type: typ, Data: json.RawMessage(data)}}, testOptions())
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && hasClass(n, "blk-fallback") {
			t.Errorf("%s block fell back to the generic view: %s", typ, out)
		}
	})
	return out, doc
}

// chFind returns the elements matching a test.
func chFind(doc *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	})
	return out
}

func chTag(tag string) func(*html.Node) bool { return func(n *html.Node) bool { return n.Data == tag } }

func chClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return hasClass(n, class) }
}

// chText is the text inside a node.
func chText(n *html.Node) string {
	var b strings.Builder
	walk(n, func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
		}
	})
	return b.String()
}

func chTexts(nodes []*html.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = strings.TrimSpace(chText(n))
	}
	return out
}

// chAccessibleSVG checks that every role="img" SVG is named by a <title> child and
// described by a <desc> child, both found by id.
func chAccessibleSVG(t *testing.T, doc *html.Node) {
	t.Helper()
	ids := map[string]*html.Node{}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "id") != "" {
			if ids[attr(n, "id")] != nil {
				t.Errorf("duplicate id %q", attr(n, "id"))
			}
			ids[attr(n, "id")] = n
		}
	})
	for _, svg := range chFind(doc, func(n *html.Node) bool { return n.Data == "svg" && attr(n, "role") == "img" }) {
		title, desc := ids[attr(svg, "aria-labelledby")], ids[attr(svg, "aria-describedby")]
		if title == nil || title.Data != "title" || strings.TrimSpace(chText(title)) == "" {
			t.Errorf("an SVG chart has no <title> naming it (aria-labelledby=%q)", attr(svg, "aria-labelledby"))
		}
		if desc == nil || desc.Data != "desc" || strings.TrimSpace(chText(desc)) == "" {
			t.Errorf("an SVG chart has no <desc> describing it (aria-describedby=%q)", attr(svg, "aria-describedby"))
		}
	}
}

func chContains(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	joined := strings.Join(got, " | ")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("%s: missing %q in %q", what, w, joined)
		}
	}
}

func TestChartsFixtureRenders(t *testing.T) {
	out := renderAll(t, chartsFixture(t), testOptions())
	writePreview(t, "charts", out)
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(chFind(doc, chClass("blk-fallback"))); n > 0 {
		t.Errorf("%d blocks fell back to the generic view", n)
	}
	chAccessibleSVG(t, doc)
}

// chTypes are the block types drawn by charts.go and metric.go.
var chTypes = map[string]bool{"chart": true, "sparkline": true, "gauge": true, "funnel": true, "heatmap": true, "progress": true, "metric": true}

func TestChartsOfTheSharedFixtureRenderWithTheirOwnView(t *testing.T) {
	var mine []blocks.Block
	for _, b := range fixture(t) {
		if chTypes[b.Type] {
			mine = append(mine, b)
		}
	}
	if len(mine) < 10 {
		t.Fatalf("only %d chart-like blocks in the shared fixture", len(mine))
	}
	out := renderAll(t, mine, testOptions())
	writePreview(t, "charts-shared", out)
	chSafe(t, out)
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range chFind(doc, chClass("blk")) {
		if hasClass(n, "blk-fallback") {
			t.Errorf("block %s (%s) fell back to the generic view", attr(n, "id"), attr(n, "data-type"))
		}
	}
	chAccessibleSVG(t, doc)
}

func TestChartBarShowsSeriesLegendAnnotationsAndATable(t *testing.T) {
	out, doc := chRender(t, "chart", `{"title":"Sales","chart_type":"bar","data":{"labels":["Q1","Q2","Q3"],
		"datasets":[{"label":"2024","data":[1,2.5,null],"color":"#36a"},{"label":"2025","data":[2,3,4]}]},
		"options":{"y_axis_label":"EUR","x_axis_label":"Quarter","show_legend":true},"annotations":[{"x":"Q2","label":"Launch","color":"red"}]}`)
	chAccessibleSVG(t, doc)
	svgs := chFind(doc, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "ch-bar") })
	if len(svgs) != 2 {
		t.Fatalf("want a wide and a narrow bar chart, got %d", len(svgs))
	}
	chContains(t, "chart text", chTexts(svgs), "Sales", "Bar chart, 3 categories, 2 series, values 1 to 4", "Launch", "EUR", "Quarter", "Q3")
	chContains(t, "legend", chTexts(chFind(doc, func(n *html.Node) bool { return n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "ch-legend") })), "2024", "2025")
	if !strings.Contains(out, `fill="#36a"`) {
		t.Errorf("the agent's colour is not used")
	}
	summary := chFind(doc, chTag("summary"))
	if len(summary) != 1 || chText(summary[0]) != "Show data as a table" {
		t.Fatalf("no data table summary: %v", chTexts(summary))
	}
	var heads, rows []string
	for _, th := range chFind(doc, chTag("th")) {
		switch attr(th, "scope") {
		case "col":
			heads = append(heads, chText(th))
		case "row":
			rows = append(rows, chText(th))
		default:
			t.Errorf("a table header without scope: %q", chText(th))
		}
	}
	if strings.Join(heads, ",") != "Quarter,2024,2025" || strings.Join(rows, ",") != "Q1,Q2,Q3" {
		t.Errorf("table headers %v, rows %v", heads, rows)
	}
	cells := chTexts(chFind(doc, chTag("td")))
	if strings.Join(cells, ",") != "1,2,2.5,3,–,4" {
		t.Errorf("table cells %v", cells)
	}
}

func TestChartKindsAndDefaults(t *testing.T) {
	cases := []struct {
		name, data string
		class      string // the class of the SVG drawn
		legend     int    // legend entries
		tableRows  int
		want       []string
	}{
		{"unknown type draws bars", `{"chart_type":"donut-ish","data":{"labels":["a","b"],"datasets":[{"data":[1,2]}]}}`, "ch-bar", 0, 2, []string{"Bar chart"}},
		{"line", `{"chart_type":"line","data":{"labels":["a","b","c"],"datasets":[{"label":"x","data":[1,null,3]},{"label":"y","data":[3,2,1]}]}}`, "ch-line", 2, 3, []string{"Line chart"}},
		{"area", `{"chart_type":"area","data":{"labels":["a","b"],"datasets":[{"data":[1,2]}]},"options":{"show_legend":true}}`, "ch-area", 1, 2, []string{"Area chart"}},
		{"pie legend by default", `{"chart_type":"pie","data":{"labels":["a","b"],"datasets":[{"data":[1,3],"color":["red","blue"]}]}}`, "ch-pie", 2, 2, []string{"a 1 (25%)", "3 · 75%", "Share of Series 1", "75%"}},
		{"pie legend off", `{"chart_type":"pie","data":{"labels":["a","b"],"datasets":[{"data":[1,3]}]},"options":{"show_legend":false}}`, "ch-pie", 0, 2, nil},
		{"scatter points", `{"chart_type":"scatter","data":{"datasets":[{"label":"pts","data":[{"x":1,"y":2},[3,4],5,null,"x"]}]},"options":{"x_axis_label":"Size"}}`, "ch-scatter", 0, 3, []string{"Scatter chart, 3 points", "(3, 4)", "Size"}},
		{"radar", `{"chart_type":"radar","data":{"labels":["a","b","c","d"],"datasets":[{"label":"A","data":[1,2,3,4]},{"label":"B","data":[4,3,2,1]}]}}`, "ch-radar", 2, 4, []string{"Radar chart, 4 axes"}},
		{"chart type in any case", `{"chart_type":" LINE ","data":{"labels":["a"],"datasets":[{"data":[1]}]}}`, "ch-line", 0, 1, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, doc := chRender(t, "chart", tc.data)
			chAccessibleSVG(t, doc)
			if len(chFind(doc, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, tc.class) })) == 0 {
				t.Errorf("no SVG of class %s in %s", tc.class, out)
			}
			if n := len(chFind(doc, func(n *html.Node) bool { return n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "ch-legend") })); n != tc.legend {
				t.Errorf("legend has %d entries, want %d", n, tc.legend)
			}
			if n := len(chFind(doc, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" })); n != tc.tableRows {
				t.Errorf("table has %d rows, want %d", n, tc.tableRows)
			}
			chContains(t, "text", []string{chText(doc)}, tc.want...)
		})
	}
}

func TestChartWithoutValuesSaysSo(t *testing.T) {
	for _, data := range []string{`{"chart_type":"bar"}`, `{"chart_type":"line","data":{"labels":["a"],"datasets":[{"data":[null]}]}}`,
		`{"chart_type":"scatter","data":{"datasets":[]}}`, `{"chart_type":"pie","data":{"datasets":[{"data":"nope"}]}}`} {
		_, doc := chRender(t, "chart", data)
		chContains(t, data, []string{chText(doc)}, "No data to chart.")
	}
}

func TestSparklineSummarisesItsValuesInWords(t *testing.T) {
	out, doc := chRender(t, "sparkline", `{"title":"Latency","values":[3,4.5,null,2],"color":"#f00","height":"40px"}`)
	svg := chFind(doc, chClass("ch-spark"))
	if len(svg) == 0 || attr(svg[0], "aria-hidden") != "true" || attr(svg[0], "height") != "40" {
		t.Fatalf("sparkline SVG missing, not aria-hidden or not 40 px high: %s", out)
	}
	hidden := chTexts(chFind(doc, chClass("visually-hidden")))
	chContains(t, "summary", hidden, "3 values (1 gap) from 2 to 4.5, last 2.")
	chContains(t, "stats", chTexts(chFind(doc, chClass("spk-stats"))), "2", "2 – 4.5")
	if !strings.Contains(out, `stroke="#f00"`) {
		t.Errorf("the agent's colour is not used")
	}
	_, doc = chRender(t, "sparkline", `{"values":[]}`)
	chContains(t, "empty", []string{chText(doc)}, "No values.")
}

func TestGaugeGivesValueMaxAndThresholdsInWords(t *testing.T) {
	_, doc := chRender(t, "gauge", `{"title":"CPU","value":72,"max":100,"unit":"%","thresholds":[{"value":90,"color":"red"},{"value":60,"color":"yellow"}]}`)
	chAccessibleSVG(t, doc)
	descs := chTexts(chFind(doc, chTag("desc")))
	chContains(t, "desc", descs, "72% of 100 (72%)", "Thresholds: 60 yellow, 90 red", "at or above the threshold 60")
	bands := chFind(doc, func(n *html.Node) bool { return n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "gz-bands") })
	if len(bands) != 3 || hasClass(bands[0], "gz-current") || !hasClass(bands[1], "gz-current") || hasClass(bands[2], "gz-current") {
		t.Fatalf("bands %v", chTexts(bands))
	}
	chContains(t, "bands", chTexts(bands), "0 – 60", "60 – 90current", "90 – 100")
	for _, data := range []string{`{"value":50,"max":0}`, `{"value":-5,"max":-10}`, `{"value":1e400,"max":"abc"}`, `{"value":"NaN"}`, `{}`} {
		_, doc := chRender(t, "gauge", data)
		chAccessibleSVG(t, doc)
	}
	_, doc = chRender(t, "gauge", `{"value":412,"max":0,"unit":"GB"}`)
	chContains(t, "max ≤ 0", chTexts(chFind(doc, chTag("desc"))), "412 GB of 450")
}

// TestGaugeLegendCoversEveryBand: the legend has a row for every stretch of the
// scale, the one below the first threshold included, and a value there is marked
// current in that row (before, a value of 30 under thresholds 50 and 80 matched no
// row, and the stretch 0–50 was missing from the legend).
func TestGaugeLegendCoversEveryBand(t *testing.T) {
	legend := func(data string) []string {
		_, doc := chRender(t, "gauge", data)
		var rows []string
		for _, li := range chFind(doc, func(n *html.Node) bool { return n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "gz-bands") }) {
			row := chText(li)
			if len(chFind(li, chClass("ch-sw"))) != 1 {
				row += " (no swatch)"
			}
			rows = append(rows, row)
		}
		return rows
	}
	for _, c := range []struct{ data, want string }{
		{`{"value":30,"max":100,"thresholds":[{"value":50,"color":"#e3b341"},{"value":80,"color":"#f85149"}]}`, "0 – 50current|50 – 80|80 – 100"},
		{`{"value":65,"max":100,"thresholds":[{"value":80},{"value":50}]}`, "0 – 50|50 – 80current|80 – 100"},
		{`{"value":5,"max":10,"thresholds":[{"value":0,"color":"green"},{"value":8,"color":"red"}]}`, "0 – 8current|8 – 10"},
		{`{"value":-3,"max":10,"thresholds":[{"value":0},{"value":8}]}`, "below 0current|0 – 8|8 – 10"},
		{`{"max":10,"thresholds":[{"value":2}]}`, "0 – 2|2 – 10"},
	} {
		if got := strings.Join(legend(c.data), "|"); got != c.want {
			t.Errorf("%s: legend %q, want %q", c.data, got, c.want)
		}
	}
}

func TestFunnelListsStepsWithShares(t *testing.T) {
	_, doc := chRender(t, "funnel", `{"title":"Signup","steps":[{"label":"Visit","value":1000},{"label":"Sign up","value":120},{"label":"Pay","value":"30"},{"label":"Broken","value":null}]}`)
	steps := chFind(doc, func(n *html.Node) bool { return n.Data == "li" && hasClass(n, "fn-step") })
	if len(steps) != 4 || chFind(doc, chTag("ol")) == nil {
		t.Fatalf("want 4 steps in an ordered list, got %d", len(steps))
	}
	got := chTexts(steps)
	chContains(t, "first", got[:1], "Visit", "1,000")
	chContains(t, "second", got[1:2], "Sign up", "120", "12% of the first step", "12% of the previous step")
	chContains(t, "third", got[2:3], "Pay", "30", "3% of the first step", "25% of the previous step")
	chContains(t, "fourth", got[3:], "Broken", "no value")
	if strings.Contains(got[0], "of the first step") {
		t.Errorf("the first step shows its share of itself: %q", got[0])
	}
	for _, svg := range chFind(doc, chTag("svg")) {
		if hasClass(svg, "ch-meter") && attr(svg, "aria-hidden") != "true" {
			t.Errorf("a funnel bar is not aria-hidden")
		}
	}
}

func TestHeatmapDrawsCellsLegendAndATable(t *testing.T) {
	out, doc := chRender(t, "heatmap", `{"title":"Load","rows":["mon","tue"],"columns":["00","06","12"],"values":[[1,2,3],[4,null,6]],"color_scale":"blue_red","min":0,"max":10}`)
	chAccessibleSVG(t, doc)
	chContains(t, "desc", chTexts(chFind(doc, chTag("desc"))), "2 rows × 3 columns, 1 empty cell", "blue (low) through white to red (high), scale 0 to 10")
	if !strings.Contains(out, "linearGradient") || !strings.Contains(out, `fill="url(#blk-b1-hm-g)"`) {
		t.Errorf("no colour legend")
	}
	rows := chFind(doc, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" })
	if len(rows) != 2 {
		t.Fatalf("table rows %d", len(rows))
	}
	chContains(t, "rows", chTexts(rows), "mon123", "tue4–6")
	if box := chFind(doc, chClass("hm-box")); len(box) != 1 || attr(box[0], "tabindex") != "0" {
		t.Errorf("the heatmap's scrolling box is not focusable")
	}
	_, doc = chRender(t, "heatmap", `{"rows":[],"columns":["a"],"values":[]}`)
	chContains(t, "empty", []string{chText(doc)}, "No data to show.")
}

func TestProgressIsAProgressbarWithItsValue(t *testing.T) {
	cases := []struct {
		data, now, max, text, pct string
		name                      string // its accessible name's source
	}{
		{`{"title":"Upload","value":40,"max":120,"label":"40 of 120","color":"green","show_percentage":true}`, "40", "120", "40 of 120 (33%)", "33%", "label"},
		{`{"title":"Upload","value":87}`, "87", "100", "87 of 100 (87%)", "87%", "title"},
		{`{"value":150,"max":100}`, "100", "100", "150 of 100 (100%)", "100%", "aria-label"},
		{`{"value":-3,"max":0}`, "0", "100", "-3 of 100 (0%)", "0%", "aria-label"},
		{`{"value":1e400,"max":1e400}`, "100", "100", "100 of 100 (100%)", "100%", "aria-label"},
		{`{"value":"12.5","max":"50","show_percentage":false}`, "12.5", "50", "12.5 of 50 (25%)", "", "aria-label"},
		{`{"value":{"x":1},"max":[1]}`, "0", "100", "0 of 100 (0%)", "0%", "aria-label"},
	}
	for _, tc := range cases {
		t.Run(tc.data, func(t *testing.T) {
			_, doc := chRender(t, "progress", tc.data)
			bars := chFind(doc, func(n *html.Node) bool { return attr(n, "role") == "progressbar" })
			if len(bars) != 1 {
				t.Fatalf("%d progressbars", len(bars))
			}
			b := bars[0]
			if attr(b, "aria-valuenow") != tc.now || attr(b, "aria-valuemax") != tc.max || attr(b, "aria-valuemin") != "0" || attr(b, "aria-valuetext") != tc.text {
				t.Errorf("now=%q max=%q text=%q", attr(b, "aria-valuenow"), attr(b, "aria-valuemax"), attr(b, "aria-valuetext"))
			}
			pct := chTexts(chFind(doc, chClass("pg-pct")))
			if tc.pct == "" && len(pct) > 0 || tc.pct != "" && (len(pct) != 1 || pct[0] != tc.pct) {
				t.Errorf("percentage shown %v, want %q", pct, tc.pct)
			}
			switch tc.name {
			case "label":
				if l := chFind(doc, func(n *html.Node) bool { return attr(n, "id") == attr(b, "aria-labelledby") }); len(l) != 1 || chText(l[0]) != "40 of 120" {
					t.Errorf("not labelled by its label")
				}
			case "title":
				if l := chFind(doc, func(n *html.Node) bool { return attr(n, "id") == attr(b, "aria-labelledby") }); len(l) != 1 || chText(l[0]) != "Upload" {
					t.Errorf("not labelled by the block title")
				}
			default:
				if attr(b, "aria-label") != "Progress" {
					t.Errorf("no accessible name")
				}
			}
		})
	}
}

// chHostileStrings go into every string field of the hostile test.
var chHostileStrings = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	`data:text/html,<script>alert(1)</script>`,
	`vbscript:msgbox(1)`,
	`<svg onload=alert(1)><script>alert(1)</script></svg>`,
	`<svg><foreignObject><iframe src="javascript:alert(1)"></iframe></foreignObject></svg>`,
	`' onmouseover='alert(1)`,
	`</title></svg><script>alert(1)</script>`,
	`url(javascript:alert(1))`,
}

// chHostileBlocks puts h into every string field of each chart-like type.
func chHostileBlocks(h string) []blocks.Block {
	s, _ := json.Marshal(h)
	q := string(s)
	r := strings.NewReplacer("H", q)
	data := []struct{ typ, data string }{
		{"chart", `{"title":H,"chart_type":H,"data":{"labels":[H,H,"x"],"datasets":[{"label":H,"data":[1,2,3],"color":H},{"label":H,"data":[3,2,1],"color":[H,H]}]},"options":{"x_axis_label":H,"y_axis_label":H,"show_legend":true},"annotations":[{"x":H,"label":H,"color":H},{"x":"x","label":H,"color":H}]}`},
		{"chart", `{"title":H,"chart_type":"pie","data":{"labels":[H,H],"datasets":[{"label":H,"data":[1,2],"color":[H,H]}]}}`},
		{"chart", `{"title":H,"chart_type":"radar","data":{"labels":[H,H,H],"datasets":[{"label":H,"data":[1,2,3],"color":H}]}}`},
		{"chart", `{"title":H,"chart_type":"scatter","data":{"datasets":[{"label":H,"data":[[1,2],{"x":H,"y":H}],"color":H}]},"options":{"x_axis_label":H,"y_axis_label":H}}`},
		{"sparkline", `{"title":H,"values":[1,2,H],"color":H,"height":H}`},
		{"gauge", `{"title":H,"value":5,"max":H,"unit":H,"thresholds":[{"value":1,"color":H},{"value":H,"color":H}]}`},
		{"funnel", `{"title":H,"steps":[{"label":H,"value":5},{"label":H,"value":H}]}`},
		{"heatmap", `{"title":H,"rows":[H,H],"columns":[H],"values":[[1],[H]],"color_scale":H}`},
		{"progress", `{"title":H,"value":5,"max":10,"label":H,"color":H,"show_percentage":true}`},
	}
	out := make([]blocks.Block, len(data))
	for i, d := range data {
		out[i] = blocks.Block{ID: "h" + string(rune('a'+i)), Type: d.typ, Data: json.RawMessage(r.Replace(d.data))}
	}
	return out
}

// chSafe asserts that parsed output holds no script, no event handler attribute,
// no style, and no address attribute with a javascript:, data: or vbscript: value.
func chSafe(t *testing.T, out string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch strings.ToLower(n.Data) {
		case "script", "style", "iframe", "img", "foreignobject", "object", "embed":
			t.Errorf("a <%s> element in the output", n.Data)
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			v := strings.ToLower(strings.TrimSpace(a.Val))
			if strings.HasPrefix(k, "on") || k == "style" {
				t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
			switch k {
			case "href", "src", "action", "formaction", "poster", "xlink:href", "srcset":
				for _, bad := range []string{"javascript:", "data:", "vbscript:"} {
					if strings.HasPrefix(v, bad) {
						t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
					}
				}
			case "fill", "stroke", "stop-color":
				if strings.Contains(v, "javascript") || strings.Contains(v, "url(") && !strings.HasPrefix(v, "url(#blk-") || strings.ContainsAny(v, "<>\"';") {
					t.Errorf("colour attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
			}
		}
	})
}

func TestChartsHostileInputStaysText(t *testing.T) {
	for _, h := range chHostileStrings {
		list := chHostileBlocks(h)
		out := renderAll(t, list, testOptions())
		chSafe(t, out)
		if strings.Contains(out, "window.__xss") && !strings.Contains(out, "&lt;script&gt;window.__xss") {
			t.Errorf("hostile text not escaped")
		}
		doc, _ := html.Parse(strings.NewReader(out))
		if n := len(chFind(doc, chClass("blk-fallback"))); n > 0 {
			t.Errorf("%d blocks fell back on %q", n, h)
		}
		chAccessibleSVG(t, doc)
	}
}

func TestChartsOddDataDoesNotBreakThem(t *testing.T) {
	odd := map[string][]string{
		"chart": {`null`, `[]`, `"x"`, `{"data":[]}`, `{"data":{"labels":"abc","datasets":{"a":1}}}`,
			`{"chart_type":1,"data":{"labels":[1,true,null,{"a":1}],"datasets":[null,1,"x",{"data":[1e400,-1e400,"NaN","Infinity",true,[1],{"y":"2"}]}]}}`,
			`{"chart_type":"bar","data":{"labels":["a"],"datasets":[{"data":[1.7976931348623157e308,-1.7976931348623157e308]}]},"options":"x","annotations":"y"}`,
			`{"chart_type":"pie","data":{"labels":["a","b"],"datasets":[{"data":[-1,0]},{"data":[null]},{},{},{},{}]}}`,
			`{"chart_type":"radar","data":{"labels":["a"],"datasets":[{"data":[1]}]}}`,
			`{"chart_type":"scatter","data":{"datasets":[{"data":[[1],[null,2],{"x":1},[1e400,1e400]]}]}}`},
		"sparkline": {`null`, `{"values":"abc"}`, `{"values":[null,null]}`, `{"values":[1e400,-1e400,0]}`, `{"values":[5],"height":-40}`, `{"values":[1,2],"height":"1e400px"}`},
		"gauge":     {`null`, `{"value":"x"}`, `{"value":5,"max":-1,"thresholds":"x"}`, `{"value":5,"thresholds":[null,1,{"value":"NaN"},{"value":1e400}]}`},
		"funnel":    {`null`, `{"steps":"x"}`, `{"steps":[]}`, `{"steps":[{"value":0},{"value":0}]}`, `{"steps":[{"value":-5},{"value":1e400},null,3]}`},
		"heatmap":   {`null`, `{"values":"x"}`, `{"rows":["a"],"columns":["b"],"values":[[null]]}`, `{"rows":["a","b"],"columns":["x","y"],"values":[[1],[1,2,3,4]],"min":5,"max":1}`, `{"rows":[1,2],"columns":[true],"values":[[1e400],[-1e400]]}`},
		"progress":  {`null`, `{"value":null}`, `{"value":5,"max":0}`, `{"value":-1e400}`, `{"value":"5","max":"x"}`},
	}
	for typ, list := range odd {
		for _, data := range list {
			t.Run(typ+" "+data, func(t *testing.T) {
				out, doc := chRender(t, typ, data)
				chAccessibleSVG(t, doc)
				chSafe(t, out)
				for _, bad := range []string{"NaN", "Inf", "+Inf", "e+308"} {
					if strings.Contains(out, `="`+bad) || strings.Contains(out, ","+bad) {
						t.Errorf("%q in an attribute: %s", bad, out)
					}
				}
			})
		}
	}
}

func TestChartsHugeListsAreBounded(t *testing.T) {
	var labels, vals, steps, row []string
	for i := 0; i < 5000; i++ {
		labels = append(labels, `"label `+strings.Repeat("x", 20)+`"`)
		vals = append(vals, "1.5")
		steps = append(steps, `{"label":"s","value":1}`)
	}
	for i := 0; i < 300; i++ {
		row = append(row, "1")
	}
	L, V := strings.Join(labels, ","), strings.Join(vals, ",")
	var sets []string
	for i := 0; i < 60; i++ {
		sets = append(sets, `{"label":"d","data":[`+V+`]}`)
	}
	var rows []string
	for i := 0; i < 300; i++ {
		rows = append(rows, "["+strings.Join(row, ",")+"]")
	}
	cases := []struct {
		typ, data, note string
		limit           int
	}{
		{"chart", `{"chart_type":"line","data":{"labels":[` + L + `],"datasets":[` + strings.Join(sets, ",") + `]}}`, "36 more datasets not shown.", 2_000_000},
		{"chart", `{"chart_type":"scatter","data":{"datasets":[` + strings.Join(sets[:3], ",") + `]}}`, "4,000 more points not shown.", 1_000_000},
		{"sparkline", `{"values":[` + V + `]}`, "4,000 more values not shown.", 40_000},
		{"funnel", `{"steps":[` + strings.Join(steps, ",") + `]}`, "4,000 more steps not shown.", 1_000_000},
		{"heatmap", `{"rows":[` + L + `],"columns":[` + L + `],"values":[` + strings.Join(rows, ",") + `]}`, "Only the first 100 rows and columns are shown.", 2_500_000},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			out, doc := chRender(t, tc.typ, tc.data)
			t.Logf("%s: %d bytes", tc.typ, len(out))
			if len(out) > tc.limit {
				t.Errorf("%d bytes drawn (limit %d)", len(out), tc.limit)
			}
			if !noteOrCut(out, "Content truncated.") { // a list past the block's room ends with the truncation note instead
				chContains(t, "note", chTexts(chFind(doc, chClass("ch-note"))), tc.note)
			}
		})
	}
}
