package render

// The metric block: one figure (value, change, trend, description, icon) and/or a
// grid of metric cards (items, each with an optional sparkline). A trend is never
// told by colour alone: it has an arrow icon and the word up, down or flat (visible
// when there is no change text, else for screen readers). The colour follows the
// agent's stated meaning: with good: "up" or "down", the trend in that direction is
// green and the other red, and the words say "better" or "worse" ("Failed payments
// ↑" with good: "down" is red, "Up, worse"); without good, up is green and down red,
// as before. Sparklines come from the chart package, escaped there (see charts.go),
// and are described in words.

import (
	"encoding/json"
	"html/template"
	"strconv"
	"strings"

	"folio/transport/web/chart"
)

func init() {
	register("metric", viewMetric)
}

type metricView struct {
	Single *metricCard
	Items  []metricCard
	Note   string
}

// metricCard is one figure: the single form (without Label) or an item.
type metricCard struct {
	Label, Value, Change, Description string
	Trend, TrendWord, TrendIcon       string // Trend is up, down, flat or ""
	Tone                              string // the colour: up, down, flat, good, bad or ""
	Icon                              template.HTML
	Spark                             template.HTML
	SparkText                         string
}

func viewMetric(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Value       Scalar `json:"value"`
		Change      Scalar `json:"change"`
		Trend       Scalar `json:"trend"`
		Description Scalar `json:"description"`
		Icon        Scalar `json:"icon"`
		Good        Scalar `json:"good"`
		Items       []struct {
			Label      Scalar  `json:"label"`
			Value      Scalar  `json:"value"`
			Trend      Scalar  `json:"trend"`
			Good       Scalar  `json:"good"`
			TrendValue Scalar  `json:"trend_value"`
			Sparkline  []chNum `json:"sparkline"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := &metricView{}
	one := metricCard{
		Value:       metricValue(d.Value.String()),
		Change:      strings.TrimSpace(d.Change.String()),
		Description: strings.TrimSpace(d.Description.String()),
		Icon:        Icon(d.Icon.String()),
	}
	one.setTrend(d.Trend.String(), d.Good.String())
	if one.Value != "" || one.Change != "" || one.Description != "" || len(d.Items) == 0 {
		if one.Value == "" {
			one.Value = "–"
		}
		v.Single = &one
	}
	items := d.Items
	if extra := len(items) - maxItems; extra > 0 {
		v.Note = chPlural(extra, "more metric", "more metrics") + " not shown."
		items = items[:maxItems]
	}
	for i, it := range items {
		card := metricCard{
			Label:  strings.TrimSpace(it.Label.String()),
			Value:  metricValue(it.Value.String()),
			Change: strings.TrimSpace(it.TrendValue.String()),
		}
		if card.Label == "" {
			card.Label = "Metric " + strconv.Itoa(i+1)
		}
		if card.Value == "" {
			card.Value = "–"
		}
		good := it.Good.String()
		if strings.TrimSpace(good) == "" {
			good = d.Good.String() // an item without its own good takes the block's
		}
		card.setTrend(it.Trend.String(), good)
		if len(it.Sparkline) > 0 {
			vals := chNumbers(it.Sparkline[:min(len(it.Sparkline), chart.MaxPoints)])
			cls := "s1"
			if card.Tone != "" {
				cls = "mt-" + card.Tone
			}
			card.Spark = chartSVG(chart.Sparkline(vals, chart.SparkOptions{Class: cls, Height: 32}))
			sum, _, _, _, _ := chSummary(vals)
			card.SparkText = "Recent values: " + sum
		}
		v.Items = append(v.Items, card)
	}
	return v, nil
}

// setTrend reads up, down or flat (any case; "increase"/"decrease" too), and the
// direction that is good, up or down (anything else: none stated). With a good
// direction the colour says good or bad and the words say better or worse; without
// one the colour is the direction's (up green, down red).
func (m *metricCard) setTrend(t, good string) {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "up", "increase", "rising":
		m.Trend, m.TrendWord, m.TrendIcon = "up", "Up", "arrow-up"
	case "down", "decrease", "falling":
		m.Trend, m.TrendWord, m.TrendIcon = "down", "Down", "arrow-down"
	case "flat", "steady", "unchanged":
		m.Trend, m.TrendWord, m.TrendIcon = "flat", "Flat", "arrow-right"
	default:
		return
	}
	m.Tone = m.Trend
	g := strings.ToLower(strings.TrimSpace(good))
	if m.Trend == "flat" || (g != "up" && g != "down") {
		return
	}
	if m.Trend == g {
		m.Tone, m.TrendWord = "good", m.TrendWord+", better"
	} else {
		m.Tone, m.TrendWord = "bad", m.TrendWord+", worse"
	}
}

// metricValue shows a value as the agent wrote it, except that a plain whole
// number of five or more digits gets thousands separators (12000 → 12,000; a year
// such as 2024, or a code such as 0012345, stays as it is).
func metricValue(s string) string {
	s = strings.TrimSpace(s)
	digits := strings.TrimPrefix(s, "-")
	if len(digits) < 5 || len(digits) > 15 || digits[0] == '0' {
		return s
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return s
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return formatNumber(f)
}
