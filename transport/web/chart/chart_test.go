package chart

// Golden files (testdata/golden/*.svg, rewritten with -update) pin the output of
// each kind byte for byte, which also proves it deterministic; the property tests
// check what must hold for any input: well-formed markup, escaped text, finite and
// bounded numbers, no style attribute, bounded size.

import (
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

var nan = math.NaN()

// goldenCases are representative charts of every kind, in a fixed order.
var goldenCases = []struct {
	name string
	draw func() string
}{
	{"bar", func() string {
		return Bar([]string{"Q1", "Q2", "Q3", "Q4"}, []Series{
			{Label: "2024", Values: []float64{1, 2.5, nan, 3}, Color: "#36a"},
			{Label: "2025", Values: []float64{2, 3, -1.5, 4}},
		}, Options{ID: "bar", Title: "Sales", YLabel: "EUR", XLabel: "Quarter",
			Annotations: []Annotation{{X: "Q2", Label: "Launch", Color: "red"}, {X: "3", Label: "Index"}}})
	}},
	{"bar-rotated", func() string {
		return Bar([]string{"authentication-service", "billing-gateway", "notification-dispatcher", "search-indexer",
			"image-resizer", "payments-reconciliation"}, []Series{{Label: "Errors", Values: []float64{12, 45, 7, 23, 3, 31}, Colors: []string{"", "#cf222e", "not a colour"}}},
			Options{ID: "rot", Width: 360, Height: 300, FontSize: 13})
	}},
	{"bar-thinned", func() string {
		labels := make([]string, 90)
		vals := make([]float64, 90)
		for i := range labels {
			labels[i] = "2025-03-" + strconv.Itoa(i%30+1)
			vals[i] = float64((i * 37) % 23)
		}
		return Bar(labels, []Series{{Label: "Deploys", Values: vals}}, Options{ID: "thin"})
	}},
	{"line", func() string {
		return Line([]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}, []Series{
			{Label: "Web", Values: []float64{1200, 1350, nan, 1380, nan, 900, 850}},
			{Label: "Mobile", Values: []float64{800, 820, 860, 900, 950, 1100, 1150}, Color: "rgb(130, 80, 223)"},
		}, Options{ID: "line", Title: "Users", Annotations: []Annotation{{X: "Fri", Label: "Outage"}, {X: "Sat", Label: "Fix"}}})
	}},
	{"area", func() string {
		return Area([]string{"Jan", "Feb", "Mar", "Apr", "May"}, []Series{{Label: "GB", Values: []float64{12000, 15000, 18500, 21000, 26000}}},
			Options{ID: "area", YLabel: "GB"})
	}},
	{"scatter", func() string {
		return Scatter([]PointSeries{
			{Label: "v1", Points: []Point{{1.2, 40}, {2.5, 55}, {4, 80}, {6, 95}, {nan, 3}}},
			{Label: "v2", Points: []Point{{1, 20}, {3, 28}, {5, -35}}, Color: "hsl(200deg 50% 40%)"},
		}, Options{ID: "sc", XLabel: "MB", YLabel: "ms"})
	}},
	{"pie", func() string {
		return Pie([]string{"Organic", "Direct", "Referral", "None", "Negative"}, []Series{
			{Label: "Visits", Values: []float64{4200, 2100, 900, 0, -5}, Colors: []string{"red", "javascript:alert(1)"}},
		}, Options{ID: "pie", Title: "Traffic"})
	}},
	{"pie-rings", func() string {
		return Pie([]string{"a", "b"}, []Series{{Label: "2024", Values: []float64{1, 1}}, {Label: "2025", Values: []float64{3}}},
			Options{ID: "rings"})
	}},
	{"radar", func() string {
		return Radar([]string{"Price", "Support", "Security", "Performance", "Integrations", "Documentation"}, []Series{
			{Label: "A", Values: []float64{7, 9, 8, 6, 7, 8}},
			{Label: "B", Values: []float64{9, 6, nan, 8, 5, 6}},
		}, Options{ID: "radar", Height: 380})
	}},
	{"radar-two-axes", func() string {
		return Radar([]string{"x", "y"}, []Series{{Label: "A", Values: []float64{1, 2}}}, Options{ID: "r2"})
	}},
	{"sparkline", func() string {
		return Sparkline([]float64{3, 4.5, nan, 2, nan, 5, 6}, SparkOptions{Height: 40})
	}},
	{"gauge", func() string {
		return Gauge(GaugeSpec{Value: 72, Max: 100, Unit: "%", Thresholds: []Threshold{{90, "red"}, {60, ""}}},
			Options{ID: "gz", Title: "CPU"})
	}},
	{"gauge-no-max", func() string {
		return Gauge(GaugeSpec{Value: 412, Max: 0, Unit: "requests per second"}, Options{ID: "gz2"})
	}},
	{"meter", func() string { return Meter(0.4, "green", false, 10) }},
	{"meter-centred", func() string { return Meter(0.12, "", true, 22) }},
	{"heatmap", func() string {
		return Heatmap(HeatmapSpec{Rows: []string{"mon", "tue"}, Columns: []string{"00", "06", "12"},
			Values: [][]float64{{1, 2, 3}, {4, nan, 6}}}, Options{ID: "hm", Title: "Load"})
	}},
	{"heatmap-blue-red", func() string {
		return Heatmap(HeatmapSpec{Rows: []string{"latency", "errors"}, Columns: []string{"latency", "errors", "a much longer column"},
			Values: [][]float64{{1, 0.62, -0.35}, {0.62, 1}}, Scale: "blue_red", Min: -1, Max: 1, HasMin: true, HasMax: true},
			Options{ID: "hm2"})
	}},
	{"empty", func() string { return Bar(nil, nil, Options{ID: "empty"}) }},
}

func TestGoldenFiles(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.draw()
			if again := tc.draw(); again != got {
				t.Fatalf("two draws differ: the output is not deterministic")
			}
			path := filepath.Join("testdata", "golden", tc.name+".svg")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./transport/web/chart/ -update to write it)", err)
			}
			if string(want) != got {
				t.Errorf("output differs from %s (rerun with -update if the change is intended)\n got: %.400s", path, got)
			}
			checkSVG(t, got)
		})
	}
}

// numberAttrs are the attributes that hold one number (optionally a percentage).
var numberAttrs = map[string]bool{"x": true, "y": true, "x1": true, "x2": true, "y1": true, "y2": true, "cx": true,
	"cy": true, "r": true, "rx": true, "width": true, "height": true, "stroke-width": true, "font-size": true,
	"dx": true, "fill-opacity": true}

var numberRe = regexp.MustCompile(`-?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?`)

// checkSVG asserts what every output must be: well-formed XML without script,
// foreign content, event handlers, links or style, whose numbers are all finite
// and within ±1e7.
func checkSVG(t *testing.T, svg string) {
	t.Helper()
	if strings.Contains(svg, "style=") || strings.Contains(svg, "<style") {
		t.Errorf("output has a style attribute or element")
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = true
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.600s", err, svg)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			switch strings.ToLower(e.Name.Local) {
			case "script", "foreignobject", "a", "image", "use", "iframe", "img", "animate", "set":
				t.Errorf("output has a <%s> element", e.Name.Local)
			}
			for _, a := range e.Attr {
				name := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(name, "on") || name == "href" || name == "style" || name == "src" {
					t.Errorf("output has the attribute %s=%q", a.Name.Local, a.Value)
				}
				if numberAttrs[name] {
					v := strings.TrimSuffix(a.Value, "%")
					f, err := strconv.ParseFloat(v, 64)
					if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > coordLimit {
						t.Errorf("attribute %s=%q is not a finite, bounded number", name, a.Value)
					}
				}
				if name == "d" || name == "points" || name == "transform" || name == "viewbox" {
					low := strings.ToLower(a.Value)
					if strings.Contains(low, "nan") || strings.Contains(low, "inf") {
						t.Errorf("attribute %s holds NaN or Inf: %q", name, a.Value)
					}
					for _, m := range numberRe.FindAllString(a.Value, -1) {
						if f, err := strconv.ParseFloat(m, 64); err != nil || math.Abs(f) > coordLimit {
							t.Errorf("attribute %s holds the number %q", name, m)
						}
					}
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Errorf("unbalanced elements")
	}
}

// everyKind draws the same input as each kind.
func everyKind(labels []string, series []Series) map[string]string {
	pts := make([]PointSeries, len(series))
	for i, s := range series {
		pts[i].Label, pts[i].Color = s.Label, s.Color
		for j, v := range s.Values {
			pts[i].Points = append(pts[i].Points, Point{X: float64(j) * v, Y: v})
		}
	}
	var first []float64
	var color string
	if len(series) > 0 {
		first, color = series[0].Values, series[0].Color
	}
	th := make([]Threshold, len(first))
	for i, v := range first {
		th[i] = Threshold{Value: v, Color: color}
	}
	rows := make([][]float64, len(series))
	for i, s := range series {
		rows[i] = s.Values
	}
	o := Options{ID: "p", Title: strings.Join(capLen(labels, 3), " "), XLabel: "x", YLabel: "y"}
	for _, l := range capLen(labels, 3) {
		o.Annotations = append(o.Annotations, Annotation{X: l, Label: l, Color: color})
	}
	gv, gm := 0.0, 0.0
	if len(first) > 1 {
		gv, gm = first[0], first[1]
	}
	return map[string]string{
		"bar":       Bar(labels, series, o),
		"line":      Line(labels, series, o),
		"area":      Area(labels, series, o),
		"pie":       Pie(labels, series, o),
		"radar":     Radar(labels, series, o),
		"scatter":   Scatter(pts, o),
		"sparkline": Sparkline(first, SparkOptions{Color: color, Class: color, Height: int(gm)}),
		"gauge":     Gauge(GaugeSpec{Value: gv, Max: gm, Unit: o.Title, Thresholds: th}, o),
		"meter":     Meter(gv, color, true, int(gm)),
		"heatmap":   Heatmap(HeatmapSpec{Rows: labels, Columns: labels, Values: rows, Scale: color, Min: gv, Max: gm, HasMin: true, HasMax: true}, o),
	}
}

func TestOddNumbersStayFiniteAndBounded(t *testing.T) {
	inf := math.Inf(1)
	cases := map[string][]float64{
		"empty":     {},
		"all gaps":  {nan, nan, nan},
		"infinite":  {inf, -inf, 1},
		"huge":      {1e308, -1e308, math.MaxFloat64, -math.MaxFloat64},
		"tiny":      {1e-320, 5e-324, -1e-310},
		"constant":  {7, 7, 7, 7},
		"zero":      {0, 0},
		"one value": {42},
		"negative":  {-5, -1, -3},
		"mixed":     {1e300, 1e-300, -1e300, 0, nan, 3},
		"near":      {1e20, 1e20 + 1e5, 1e20},
	}
	for name, vals := range cases {
		labels := []string{"a", "b", "c", "d", "e", "f"}
		for kind, out := range everyKind(labels, []Series{{Label: name, Values: vals}, {Label: "other", Values: []float64{1, nan, 2}}}) {
			t.Run(name+"/"+kind, func(t *testing.T) {
				checkSVG(t, out)
			})
		}
	}
}

var hostile = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	`data:text/html,<script>alert(1)</script>`,
	`vbscript:msgbox(1)`,
	`<svg onload=alert(1)><foreignObject><iframe src=javascript:alert(1)>`,
	`' onmouseover='alert(1)`,
	"control\x00\x01\x1b chars \xff\xfe invalid utf-8",
	`url(javascript:alert(1))`,
	`red;background:url(x)`,
	`expression(alert(1))`,
	`</title><script>alert(1)</script>`,
	`]]><!-- --><?xml ?>`,
}

func TestHostileTextIsEscaped(t *testing.T) {
	for i, h := range hostile {
		labels := []string{h, h + "2", h + "3", "plain"}
		series := []Series{{Label: h, Values: []float64{1, 2, 3, 4}, Color: h, Colors: []string{h, h}}, {Label: h, Values: []float64{4, 3, 2, 1}, Color: h}}
		for kind, out := range everyKind(labels, series) {
			t.Run(strconv.Itoa(i)+"/"+kind, func(t *testing.T) {
				checkSVG(t, out)
				if strings.Contains(out, "<script") || strings.Contains(out, "<img") || strings.Contains(out, "<iframe") {
					t.Errorf("markup escaped into the output: %.300s", out)
				}
			})
		}
		if got := CleanColor(h); got != "" {
			t.Errorf("CleanColor(%q) = %q, want refused", h, got)
		}
	}
}

func TestHugeInputIsBounded(t *testing.T) {
	labels := make([]string, 100_000)
	series := make([]Series, 200)
	long := strings.Repeat("label ", 10_000)
	for i := range labels {
		labels[i] = long
	}
	vals := make([]float64, 100_000)
	for i := range vals {
		vals[i] = float64(i % 97)
	}
	for i := range series {
		series[i] = Series{Label: long, Values: vals}
	}
	// the most any kind may draw: every point of every series, a few hundred bytes each
	limit := MaxSeries*MaxPoints*400 + 1_000_000
	for kind, out := range everyKind(labels, series) {
		if len(out) > limit {
			t.Errorf("%s drew %d bytes from a huge input (limit %d)", kind, len(out), limit)
		}
		if strings.Contains(out, long[:2000]) {
			t.Errorf("%s wrote a 60,000-character label in full", kind)
		}
	}
	hm := Heatmap(HeatmapSpec{Rows: labels, Columns: labels, Values: [][]float64{vals, vals}}, Options{})
	if n := strings.Count(hm, "<rect"); n > MaxCells*MaxCells+2 {
		t.Errorf("heatmap drew %d cells", n)
	}
	if n := strings.Count(Sparkline(vals, SparkOptions{}), "L"); n > MaxPoints*2 {
		t.Errorf("sparkline drew %d segments", n)
	}
}

func TestAccessibleNameAndDescription(t *testing.T) {
	out := Bar([]string{"Q1", "Q2", "Q3"}, []Series{{Label: "a", Values: []float64{1, 2, 3}}, {Label: "b", Values: []float64{4, nan, 2}}},
		Options{ID: "x y", Title: "Sales <2025>"})
	for _, want := range []string{
		`role="img"`, `aria-labelledby="x_y-t"`, `aria-describedby="x_y-d"`,
		`<title id="x_y-t">Sales &lt;2025&gt;</title>`,
		`<desc id="x_y-d">Bar chart, 3 categories, 2 series, values 1 to 4.</desc>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in %.400s", want, out)
		}
	}
}

func TestLongLabelsAreCutWithTheFullTextInATitle(t *testing.T) {
	long := "a very long category label that cannot possibly fit under one bar"
	out := Bar([]string{long, "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, []Series{{Values: []float64{1, 2, 3}}}, Options{Width: 320})
	if !strings.Contains(out, "…<title>"+long+"</title>") {
		t.Errorf("the long label was not cut with its full text in a title: %.2000s", out)
	}
}

func TestAnnotationsFindTheirCategory(t *testing.T) {
	labels := []string{"Jan", "Feb", "Mar"}
	for x, want := range map[string]int{"Feb": 1, " feb ": 1, "2": 2, "0": 0, "2.0": 2} {
		if i, ok := Index(x, labels, 3); !ok || i != want {
			t.Errorf("Index(%q) = %d, %v; want %d", x, i, ok, want)
		}
	}
	for _, x := range []string{"", "Apr", "3", "-1", "1.5", "NaN"} {
		if _, ok := Index(x, labels, 3); ok {
			t.Errorf("Index(%q) found a category", x)
		}
	}
	out := Line(labels, []Series{{Values: []float64{1, 2, 3}}}, Options{Annotations: []Annotation{{X: "Mar", Label: "Launch", Color: "url(#x)"}}})
	if !strings.Contains(out, ">Launch</text>") || strings.Contains(out, "url(") {
		t.Errorf("annotation not drawn, or its unsafe colour kept: %s", out)
	}
}
