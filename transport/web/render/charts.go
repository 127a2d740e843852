package render

// The views of the chart-like blocks: chart, sparkline, gauge, funnel, heatmap and
// progress. Each decodes its data leniently into plain values and has the chart
// package (transport/web/chart) draw the SVG. That SVG is inlined as template.HTML:
// the chart package escapes every piece of agent text itself, writes only finite
// numbers and admits a colour only through its own strict check (chart.CleanColor),
// so nothing in it can open an element or carry a script. Every chart also has a
// text alternative a screen reader and a keyboard reach: a data table, a list or a
// sentence.

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"math"
	"strconv"
	"strings"

	"folio/transport/web/chart"
)

func init() {
	register("chart", viewChart)
	register("sparkline", viewSparkline)
	register("gauge", viewGauge)
	register("funnel", viewFunnel)
	register("heatmap", viewHeatmap)
	register("progress", viewProgress)
}

// The two drawings of a chart: one for a wide box, one for a narrow one (a phone, a
// layout column). CSS shows the one that fits its box (a container query), so the
// text of the chart keeps a readable size at any width.
var (
	wideChart   = chart.Options{Width: 720, Height: 320}
	narrowChart = chart.Options{Width: 320, Height: 280, FontSize: 13}
)

// chNum is a number of a chart block: a JSON number or a numeric string. Unlike
// Number it keeps numbers too large for float64 (1e400), as ±Inf, which the chart
// package clamps; NaN and anything else read as absent.
type chNum struct {
	V  float64
	OK bool
}

func (n *chNum) UnmarshalJSON(b []byte) error {
	*n = parseChNum(b)
	return nil
}

func parseChNum(b []byte) chNum {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return chNum{}
		}
		b = []byte(strings.TrimSpace(s))
	}
	if len(b) == 0 || len(b) > 400 {
		return chNum{}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
		return chNum{}
	}
	return chNum{V: f, OK: true}
}

// value is the number, or NaN (a gap) when absent.
func (n chNum) value() float64 {
	if !n.OK {
		return math.NaN()
	}
	return n.V
}

func chNumbers(list []chNum) []float64 {
	out := make([]float64, len(list))
	for i, n := range list {
		out[i] = n.value()
	}
	return out
}

// chartValue is one member of a dataset's data: a number (or numeric string), an
// {x, y} object or an [x, y] pair (scatter charts). null and anything else is a gap.
type chartValue struct {
	X, Y float64
	HasX bool
	OK   bool
}

func (p *chartValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*p = chartValue{}
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '{':
		var o struct {
			X chNum `json:"x"`
			Y chNum `json:"y"`
		}
		_ = decode(b, &o)
		if o.Y.OK {
			*p = chartValue{X: o.X.V, Y: o.Y.V, HasX: o.X.OK, OK: true}
		}
	case '[':
		var a []chNum
		_ = decode(b, &a)
		if len(a) >= 2 && a[0].OK && a[1].OK {
			*p = chartValue{X: a[0].V, Y: a[1].V, HasX: true, OK: true}
		}
	default:
		if n := parseChNum(b); n.OK {
			*p = chartValue{Y: n.V, OK: true}
		}
	}
	return nil
}

// chartColor is a dataset's colour: one colour, or one per value (pie slices).
type chartColor struct {
	One  string
	Many []string
}

func (c *chartColor) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = chartColor{}
	switch {
	case len(b) > 0 && b[0] == '"':
		_ = json.Unmarshal(b, &c.One)
	case len(b) > 0 && b[0] == '[':
		var list []Scalar
		_ = decode(b, &list)
		for _, s := range list[:min(len(list), chart.MaxPoints)] {
			c.Many = append(c.Many, s.String())
		}
	}
	return nil
}

type chartData struct {
	Title     Scalar `json:"title"`
	ChartType Scalar `json:"chart_type"`
	Data      struct {
		Labels   []Scalar `json:"labels"`
		Datasets []struct {
			Label Scalar       `json:"label"`
			Data  []chartValue `json:"data"`
			Color chartColor   `json:"color"`
		} `json:"datasets"`
	} `json:"data"`
	Options struct {
		XAxisLabel Scalar `json:"x_axis_label"`
		YAxisLabel Scalar `json:"y_axis_label"`
		ShowLegend *bool  `json:"show_legend"`
	} `json:"options"`
	Annotations []struct {
		X     Scalar `json:"x"`
		Label Scalar `json:"label"`
		Color Scalar `json:"color"`
	} `json:"annotations"`
}

// chartView is what the "chart" template gets.
type chartView struct {
	Kind   string        // bar, line, area, pie, scatter, radar
	Wide   template.HTML // the SVG for a wide box (the only one for pie)
	Narrow template.HTML // the SVG for a narrow box
	Legend []chLegendItem
	Table  chTable
	Notes  []string
	Empty  bool
}

// chLegendItem is one entry of a chart's legend: a colour swatch (a palette class or
// the agent's colour) and its text.
type chLegendItem struct {
	Label, Class, Color, Value string
}

// chPointBytes is less than any point of any chart draws (in its two drawings and
// its table), so a chart whose points times this pass its block's room cannot fit
// and is not drawn at all.
const chPointBytes = 32

const chTooLarge = "The chart is larger than the review page draws; its values are in the table below."

// chFits reports whether a chart of points values may fit its block's room; when
// not, it says so in a note (and the drawings are not built).
func chFits(c *Ctx, v *chartView, points int) bool {
	if points*chPointBytes <= c.Room() {
		return true
	}
	v.Notes = append(v.Notes, chTooLarge)
	return false
}

// chFitsDrawn drops drawings that came out larger than the block's room (a single
// write past it would cut the block before its table), saying so in a note.
func chFitsDrawn(c *Ctx, v *chartView) {
	if len(v.Wide)+len(v.Narrow) > c.Room()-2*markerReserve {
		v.Wide, v.Narrow = "", ""
		v.Notes = append(v.Notes, chTooLarge)
	}
}

// chTable is the table alternative of a chart (inside a <details>).
type chTable struct {
	Label   string // the name of its scrolling region ("Data of Sales")
	Summary string
	Head    []string
	Rows    []chRow
	More    string
}

type chRow struct {
	Head  string
	Cells []string
}

func viewChart(c *Ctx, data json.RawMessage) (any, error) {
	var d chartData
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.TrimSpace(d.ChartType.String()))
	switch kind {
	case "bar", "line", "area", "pie", "scatter", "radar":
	default:
		kind = "bar"
	}
	v := &chartView{Kind: kind}
	labels := make([]string, 0, min(len(d.Data.Labels), chart.MaxPoints))
	for _, l := range d.Data.Labels[:min(len(d.Data.Labels), chart.MaxPoints)] {
		labels = append(labels, strings.TrimSpace(l.String()))
	}
	sets := d.Data.Datasets
	if extra := len(sets) - chart.MaxSeries; extra > 0 {
		v.Notes = append(v.Notes, chPlural(extra, "more dataset", "more datasets")+" not shown.")
		sets = sets[:chart.MaxSeries]
	}
	opt := chart.Options{
		Title:  strings.TrimSpace(d.Title.String()),
		XLabel: strings.TrimSpace(d.Options.XAxisLabel.String()),
		YLabel: strings.TrimSpace(d.Options.YAxisLabel.String()),
	}
	if opt.Title == "" {
		opt.Title = humanize(kind) + " chart"
	}
	for _, a := range d.Annotations[:min(len(d.Annotations), chart.MaxAnnotations)] {
		opt.Annotations = append(opt.Annotations, chart.Annotation{X: a.X.String(), Label: a.Label.String(), Color: a.Color.String()})
	}
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = strings.TrimSpace(s.Label.String())
		if names[i] == "" {
			names[i] = "Series " + strconv.Itoa(i+1)
		}
	}
	showLegend := len(sets) > 1 || kind == "pie"
	if d.Options.ShowLegend != nil {
		showLegend = *d.Options.ShowLegend
	}

	if kind == "scatter" {
		series := make([]chart.PointSeries, len(sets))
		count := 0
		for i, s := range sets {
			pts := s.Data
			if extra := len(pts) - chart.MaxPoints; extra > 0 {
				v.Notes = append(v.Notes, names[i]+": "+chPlural(extra, "more point", "more points")+" not shown.")
				pts = pts[:chart.MaxPoints]
			}
			series[i] = chart.PointSeries{Label: names[i], Color: s.Color.One}
			for j, p := range pts {
				x := p.X
				if !p.HasX {
					x = float64(j) // a plain number: its position is its x
				}
				if p.OK {
					series[i].Points = append(series[i].Points, chart.Point{X: x, Y: p.Y})
					count++
				}
			}
		}
		v.Empty = count == 0
		if chFits(c, v, count) {
			v.Wide = chartSVG(chart.Scatter(series, chartOpts(opt, wideChart, c.ID("cw"))))
			v.Narrow = chartSVG(chart.Scatter(series, chartOpts(opt, narrowChart, c.ID("cn"))))
			chFitsDrawn(c, v)
		}
		v.Table = chScatterTable(series, opt)
		if showLegend {
			for i, s := range series {
				v.Legend = append(v.Legend, chSwatch(i, s.Color, s.Label))
			}
		}
		return v, nil
	}

	series := make([]chart.Series, len(sets))
	count := 0
	for i, s := range sets {
		vals := make([]float64, min(len(s.Data), chart.MaxPoints))
		for j := range vals {
			p := s.Data[j]
			vals[j] = math.NaN()
			if p.OK {
				vals[j] = p.Y
				if !math.IsNaN(p.Y) {
					count++
				}
			}
		}
		series[i] = chart.Series{Label: names[i], Values: vals, Color: s.Color.One, Colors: s.Color.Many}
	}
	more := len(d.Data.Labels)
	for _, s := range sets {
		more = max(more, len(s.Data))
	}
	if more > chart.MaxPoints {
		v.Notes = append(v.Notes, chPlural(more-chart.MaxPoints, "more value", "more values")+" per dataset not shown.")
	}
	v.Empty = count == 0
	n := chart.Categories(labels, series)
	switch {
	case !chFits(c, v, count):
	case kind == "pie":
		v.Wide = chartSVG(chart.Pie(labels, series, chartOpts(opt, chart.Options{}, c.ID("cw"))))
		if rings := chart.PieRings(series); rings < len(series) {
			v.Notes = append(v.Notes, "The chart draws the first "+strconv.Itoa(rings)+" datasets as rings; the table has them all.")
		}
		if showLegend && len(series) > 0 {
			v.Legend = chPieLegend(labels, series[0], n)
		}
	case kind == "line":
		v.Wide = chartSVG(chart.Line(labels, series, chartOpts(opt, wideChart, c.ID("cw"))))
		v.Narrow = chartSVG(chart.Line(labels, series, chartOpts(opt, narrowChart, c.ID("cn"))))
	case kind == "area":
		v.Wide = chartSVG(chart.Area(labels, series, chartOpts(opt, wideChart, c.ID("cw"))))
		v.Narrow = chartSVG(chart.Area(labels, series, chartOpts(opt, narrowChart, c.ID("cn"))))
	case kind == "radar":
		wide, narrow := wideChart, narrowChart
		wide.Height, narrow.Height = 380, 270
		v.Wide = chartSVG(chart.Radar(labels, series, chartOpts(opt, wide, c.ID("cw"))))
		v.Narrow = chartSVG(chart.Radar(labels, series, chartOpts(opt, narrow, c.ID("cn"))))
	default:
		v.Wide = chartSVG(chart.Bar(labels, series, chartOpts(opt, wideChart, c.ID("cw"))))
		v.Narrow = chartSVG(chart.Bar(labels, series, chartOpts(opt, narrowChart, c.ID("cn"))))
	}
	chFitsDrawn(c, v)
	if showLegend && kind != "pie" {
		for i, s := range series {
			v.Legend = append(v.Legend, chSwatch(i, s.Color, s.Label))
		}
	}
	v.Table = chCategoryTable(labels, series, n, opt, kind == "pie")
	return v, nil
}

// chartSVG marks the chart package's output as HTML: it is built escaped (see the
// top of this file).
func chartSVG(svg string) template.HTML { return template.HTML(svg) } // #nosec: escaped by package chart

func chartOpts(o, size chart.Options, id string) chart.Options {
	o.Width, o.Height, o.FontSize, o.ID = size.Width, size.Height, size.FontSize, id
	return o
}

// swatch is the legend entry of series i.
func chSwatch(i int, color, label string) chLegendItem {
	if c := chart.CleanColor(color); c != "" {
		return chLegendItem{Label: label, Color: c}
	}
	return chLegendItem{Label: label, Class: chart.SeriesClass(i)}
}

// chMaxLegend is the most entries a pie's legend lists (the table has them all).
const chMaxLegend = 24

func chPieLegend(labels []string, s chart.Series, n int) []chLegendItem {
	total := 0.0
	for _, v := range s.Values[:min(len(s.Values), n)] {
		if v > 0 && !math.IsInf(v, 0) {
			total += v
		}
	}
	var out []chLegendItem
	shown, rest := 0, 0
	for i := 0; i < n; i++ {
		lab := chLabelOf(labels, i)
		val := math.NaN()
		if i < len(s.Values) {
			val = s.Values[i]
		}
		if shown >= chMaxLegend {
			rest++
			continue
		}
		color := ""
		if i < len(s.Colors) {
			color = s.Colors[i]
		}
		it := chSwatch(i, color, lab)
		switch {
		case math.IsNaN(val):
			it.Value = "no value"
		case val > 0 && total > 0:
			it.Value = chart.Format(val) + " · " + chart.Percent(val/total)
		default:
			it.Value = chart.Format(val)
		}
		out = append(out, it)
		shown++
	}
	if rest > 0 {
		out = append(out, chLegendItem{Label: chPlural(rest, "more slice", "more slices") + " in the table"})
	}
	return out
}

func chLabelOf(labels []string, i int) string {
	if i < len(labels) && labels[i] != "" {
		return labels[i]
	}
	return "#" + strconv.Itoa(i+1)
}

func chCategoryTable(labels []string, series []chart.Series, n int, o chart.Options, share bool) chTable {
	t := chTable{Summary: "Show data as a table", Label: "Data of " + o.Title}
	first := o.XLabel
	if first == "" {
		first = "Label"
	}
	t.Head = append(t.Head, first)
	for _, s := range series {
		t.Head = append(t.Head, s.Label)
	}
	totals := make([]float64, len(series))
	if share {
		for si, s := range series {
			for _, v := range s.Values {
				if v > 0 && !math.IsInf(v, 0) {
					totals[si] += v
				}
			}
			t.Head = append(t.Head, "Share of "+s.Label)
		}
	}
	for i := 0; i < n && i < maxItems; i++ {
		row := chRow{Head: chLabelOf(labels, i)}
		for _, s := range series {
			row.Cells = append(row.Cells, chCell(s.Values, i))
		}
		if share {
			for si, s := range series {
				sh := "–"
				if i < len(s.Values) && s.Values[i] > 0 && totals[si] > 0 {
					sh = chart.Percent(s.Values[i] / totals[si])
				}
				row.Cells = append(row.Cells, sh)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if n == 0 || len(series) == 0 {
		t.Rows = nil
	}
	return t
}

func chCell(vals []float64, i int) string {
	if i >= len(vals) || math.IsNaN(vals[i]) {
		return "–"
	}
	return chart.Format(vals[i])
}

func chScatterTable(series []chart.PointSeries, o chart.Options) chTable {
	t := chTable{Summary: "Show data as a table", Label: "Data of " + o.Title, Head: []string{"Series", "x", "y"}}
	if o.XLabel != "" {
		t.Head[1] = o.XLabel
	}
	if o.YLabel != "" {
		t.Head[2] = o.YLabel
	}
	rest := 0
	for _, s := range series {
		for _, p := range s.Points {
			if len(t.Rows) >= maxItems {
				rest++
				continue
			}
			t.Rows = append(t.Rows, chRow{Head: s.Label, Cells: []string{chart.Format(p.X), chart.Format(p.Y)}})
		}
	}
	if rest > 0 {
		t.More = chPlural(rest, "more point", "more points") + " not shown."
	}
	return t
}

func chPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatNumber(float64(n)) + " " + many
}

// --- sparkline ---

type sparkView struct {
	SVG            template.HTML
	Count          int
	Last, Min, Max string
	Summary, Note  string
}

func viewSparkline(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Values []chNum `json:"values"`
		Color  Scalar  `json:"color"`
		Height Scalar  `json:"height"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := &sparkView{}
	vals := d.Values
	if extra := len(vals) - chart.MaxPoints; extra > 0 {
		v.Note = chPlural(extra, "more value", "more values") + " not shown."
		vals = vals[:chart.MaxPoints]
	}
	nums := chNumbers(vals)
	v.SVG = chartSVG(chart.Sparkline(nums, chart.SparkOptions{Color: d.Color.String(), Height: chPixels(d.Height.String(), 40)}))
	v.Summary, v.Count, v.Last, v.Min, v.Max = chSummary(nums)
	return v, nil
}

// chSummary puts a line of values in words: "12 values from 2 to 9, last 4.5".
func chSummary(vals []float64) (summary string, count int, last, lo, hi string) {
	minV, maxV, lastV := math.Inf(1), math.Inf(-1), math.NaN()
	for _, x := range vals {
		if !math.IsNaN(x) {
			minV, maxV, lastV = min(minV, x), max(maxV, x), x
			count++
		}
	}
	if count == 0 {
		return "No values.", 0, "", "", ""
	}
	last, lo, hi = chart.Format(lastV), chart.Format(minV), chart.Format(maxV)
	summary = chPlural(count, "value", "values")
	if gaps := len(vals) - count; gaps > 0 {
		summary += " (" + chPlural(gaps, "gap", "gaps") + ")"
	}
	if count == 1 {
		return summary + ": " + last + ".", count, last, lo, hi
	}
	return summary + " from " + lo + " to " + hi + ", last " + last + ".", count, last, lo, hi
}

// chPixels reads a height in pixels ("40", "40px", "2.5rem"); def when unusable.
func chPixels(s string, def int) int {
	s = strings.TrimSpace(strings.ToLower(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "px"):
		s = strings.TrimSuffix(s, "px")
	case strings.HasSuffix(s, "rem"), strings.HasSuffix(s, "em"):
		s, mult = strings.TrimSuffix(strings.TrimSuffix(s, "rem"), "em"), 16
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return def
	}
	return int(math.Round(min(f*mult, 1000)))
}

// --- gauge ---

type gaugeView struct {
	SVG   template.HTML
	Bands []gaugeBand
	Note  string
}

// gaugeBand is one threshold's band in the legend under a gauge.
type gaugeBand struct {
	Label, Class, Color string
	Current             bool
}

func viewGauge(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title      Scalar `json:"title"`
		Value      chNum  `json:"value"`
		Max        chNum  `json:"max"`
		Unit       Scalar `json:"unit"`
		Thresholds []struct {
			Value chNum  `json:"value"`
			Color Scalar `json:"color"`
		} `json:"thresholds"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	spec := chart.GaugeSpec{Value: d.Value.value(), Max: d.Max.value(), Unit: strings.TrimSpace(d.Unit.String())}
	for _, t := range d.Thresholds[:min(len(d.Thresholds), maxItems)] {
		spec.Thresholds = append(spec.Thresholds, chart.Threshold{Value: t.Value.value(), Color: t.Color.String()})
	}
	title := strings.TrimSpace(d.Title.String())
	if title == "" {
		title = "Gauge"
	}
	v := &gaugeView{SVG: chartSVG(chart.Gauge(spec, chart.Options{ID: c.ID("g"), Title: title}))}
	if len(d.Thresholds) > maxItems {
		v.Note = chPlural(len(d.Thresholds)-maxItems, "more threshold", "more thresholds") + " not shown."
	}
	th := chart.SortedThresholds(spec.Thresholds)
	maxV := chart.GaugeMax(spec.Value, spec.Max)
	band := -1
	if d.Value.OK {
		band = chart.Band(d.Value.V, th)
	}
	// The legend covers the whole scale: the stretch below the first threshold is
	// a band too, so a value there is "current" in a row of its own rather than in
	// no row at all. Its swatch is the colour the value's arc takes there (the
	// first palette colour, chart.Gauge).
	if len(th) > 0 && (th[0].Value > 0 || d.Value.OK && d.Value.V < th[0].Value) {
		b := gaugeBand{Class: chart.SeriesClass(0), Current: d.Value.OK && band == -1}
		if th[0].Value > 0 {
			b.Label = "0 – " + chart.Format(th[0].Value)
		} else {
			b.Label = "below " + chart.Format(th[0].Value)
		}
		v.Bands = append(v.Bands, b)
	}
	for i, t := range th {
		b := gaugeBand{Current: i == band}
		if i+1 < len(th) {
			b.Label = chart.Format(t.Value) + " – " + chart.Format(th[i+1].Value)
		} else {
			b.Label = chart.Format(t.Value) + " – " + chart.Format(max(maxV, t.Value))
		}
		if col := chart.CleanColor(t.Color); col != "" {
			b.Color = col
		} else {
			b.Class = chart.BandClass(i)
		}
		v.Bands = append(v.Bands, b)
	}
	return v, nil
}

// --- funnel ---

type funnelView struct {
	Steps []funnelStep
	Note  string
}

type funnelStep struct {
	Label, Value, OfFirst, FromPrev string
	Bar                             template.HTML
}

func viewFunnel(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Steps []struct {
			Label Scalar `json:"label"`
			Value chNum  `json:"value"`
		} `json:"steps"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := &funnelView{}
	steps := d.Steps
	if extra := len(steps) - maxItems; extra > 0 {
		v.Note = chPlural(extra, "more step", "more steps") + " not shown."
		steps = steps[:maxItems]
	}
	vals := make([]float64, len(steps))
	for i, s := range steps {
		vals[i] = s.Value.value()
	}
	for i, f := range chart.Funnel(vals) {
		st := funnelStep{Label: strings.TrimSpace(steps[i].Label.String()), Value: "no value",
			Bar: chartSVG(chart.Meter(f.Frac, "", true, 22))}
		if st.Label == "" {
			st.Label = "Step " + strconv.Itoa(i+1)
		}
		if f.OK {
			st.Value = chart.Format(f.Value)
		}
		if !math.IsNaN(f.OfFirst) && i > 0 {
			st.OfFirst = chart.Percent(f.OfFirst) + " of the first step"
		}
		if !math.IsNaN(f.FromPrev) {
			st.FromPrev = chart.Percent(f.FromPrev) + " of the previous step"
		}
		v.Steps = append(v.Steps, st)
	}
	return v, nil
}

// --- heatmap ---

// heatCellBytes is about what one heatmap cell draws: its rect and tooltip in the
// grid, its cell in the data table.
const heatCellBytes = 256

type heatView struct {
	SVG      template.HTML
	BoxLabel string // the name of its scrolling region
	Table    chTable
	Note     string
	Empty    bool
}

func viewHeatmap(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title      Scalar    `json:"title"`
		Rows       []Scalar  `json:"rows"`
		Columns    []Scalar  `json:"columns"`
		Values     [][]chNum `json:"values"`
		ColorScale Scalar    `json:"color_scale"`
		Min        chNum     `json:"min"`
		Max        chNum     `json:"max"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	spec := chart.HeatmapSpec{Scale: strings.TrimSpace(d.ColorScale.String()),
		Min: d.Min.V, HasMin: d.Min.OK, Max: d.Max.V, HasMax: d.Max.OK}
	for _, r := range d.Rows[:min(len(d.Rows), chart.MaxCells)] {
		spec.Rows = append(spec.Rows, strings.TrimSpace(r.String()))
	}
	for _, col := range d.Columns[:min(len(d.Columns), chart.MaxCells)] {
		spec.Columns = append(spec.Columns, strings.TrimSpace(col.String()))
	}
	for _, r := range d.Values[:min(len(d.Values), chart.MaxCells)] {
		spec.Values = append(spec.Values, chNumbers(r[:min(len(r), chart.MaxCells)]))
	}
	nr, nc := chart.HeatSize(spec)
	v := &heatView{Empty: nr == 0 || nc == 0}
	if len(d.Rows) > chart.MaxCells || len(d.Values) > chart.MaxCells || len(d.Columns) > chart.MaxCells {
		v.Note = "Only the first " + strconv.Itoa(chart.MaxCells) + " rows and columns are shown."
	} else {
		for _, r := range d.Values {
			if len(r) > chart.MaxCells {
				v.Note = "Only the first " + strconv.Itoa(chart.MaxCells) + " rows and columns are shown."
				break
			}
		}
	}
	// Row and column labels alone can ask for MaxCells² cells: the grid drawn is
	// what the block's room holds (heatCellBytes per cell, grid and table).
	if cells := max(1, c.Room()/heatCellBytes); nr*nc > cells {
		nc = min(nc, cells)
		nr = max(1, min(nr, cells/nc))
		spec.Rows, spec.Columns = spec.Rows[:min(len(spec.Rows), nr)], spec.Columns[:min(len(spec.Columns), nc)]
		spec.Values = spec.Values[:min(len(spec.Values), nr)]
		for i, r := range spec.Values {
			spec.Values[i] = r[:min(len(r), nc)]
		}
		v.Note = "Only the first " + strconv.Itoa(nr) + " rows and " + strconv.Itoa(nc) + " columns are shown: the grid is larger than the review page draws."
	}
	if v.Empty {
		return v, nil
	}
	title := strings.TrimSpace(d.Title.String())
	if title == "" {
		title = "Heatmap"
	}
	v.SVG = chartSVG(chart.Heatmap(spec, chart.Options{ID: c.ID("hm"), Title: title}))
	if len(v.SVG) > c.Room()-2*markerReserve { // a single write past the room would cut the block before its table
		v.SVG, v.Note = "", "The grid is larger than the review page draws; its values are in the table below."
	}
	v.BoxLabel = "Grid of " + title
	v.Table = chTable{Summary: "Show data as a table", Label: "Data of " + title, Head: []string{"Row"}}
	for j := 0; j < nc; j++ {
		v.Table.Head = append(v.Table.Head, chLabelOf(spec.Columns, j))
	}
	for i := 0; i < nr; i++ {
		row := chRow{Head: chLabelOf(spec.Rows, i)}
		for j := 0; j < nc; j++ {
			var vals []float64
			if i < len(spec.Values) {
				vals = spec.Values[i]
			}
			row.Cells = append(row.Cells, chCell(vals, j))
		}
		v.Table.Rows = append(v.Table.Rows, row)
	}
	return v, nil
}

// --- progress ---

type progressView struct {
	Label, Percent, ValueText string
	Now, Max                  string
	LabelID, NameID           string
	ShowPercent               bool
	Bar                       template.HTML
}

func viewProgress(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title          Scalar `json:"title"`
		Value          chNum  `json:"value"`
		Max            chNum  `json:"max"`
		Label          Scalar `json:"label"`
		Color          Scalar `json:"color"`
		ShowPercentage *bool  `json:"show_percentage"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	maxV := 100.0
	if d.Max.OK && d.Max.V > 0 && !math.IsInf(d.Max.V, 0) {
		maxV = d.Max.V
	}
	value := 0.0
	if d.Value.OK && !math.IsInf(d.Value.V, 0) {
		value = d.Value.V
	} else if d.Value.OK {
		value = math.Copysign(maxV, d.Value.V) // 1e400: past either end
	}
	now := min(max(value, 0), maxV)
	frac := now / maxV
	v := &progressView{
		Label:       strings.TrimSpace(d.Label.String()),
		Percent:     chart.Percent(frac),
		Now:         strconv.FormatFloat(now, 'g', -1, 64),
		Max:         strconv.FormatFloat(maxV, 'g', -1, 64),
		ShowPercent: d.ShowPercentage == nil || *d.ShowPercentage,
		LabelID:     c.ID("pl"),
		Bar:         chartSVG(chart.Meter(frac, d.Color.String(), false, 10)),
	}
	v.ValueText = chart.Format(value) + " of " + chart.Format(maxV) + " (" + v.Percent + ")"
	if strings.TrimSpace(d.Title.String()) != "" {
		v.NameID = c.DOMID() + "-h" // the box's title heading
	}
	return v, nil
}
