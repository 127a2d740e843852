package render

// Tests of the metric block: the single figure, the grid of cards, both together,
// trends told in words and icons (never by colour alone), hostile and odd data.

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestMetricSingleShowsValueTrendAndDescription(t *testing.T) {
	_, doc := chRender(t, "metric", `{"title":"Revenue","value":"$1.2M","change":"+4%","trend":"up","description":"Month to date","icon":"💰"}`)
	chContains(t, "title", chTexts(chFind(doc, chClass("blk-title"))), "Revenue")
	chContains(t, "value", chTexts(chFind(doc, chClass("mt-value"))), "$1.2M")
	trend := chFind(doc, chClass("mt-trend"))
	if len(trend) != 1 || !hasClass(trend[0], "mt-t-up") {
		t.Fatalf("trend %v", chTexts(trend))
	}
	if got := strings.Join(strings.Fields(chText(trend[0])), " "); got != "Up +4%" {
		t.Errorf("trend reads %q, want %q", got, "Up +4%")
	}
	if len(chFind(trend[0], func(n *html.Node) bool { return n.Data == "svg" && attr(n, "aria-hidden") == "true" })) != 1 {
		t.Errorf("no arrow icon in the trend")
	}
	if w := chFind(trend[0], chClass("visually-hidden")); len(w) != 1 || strings.TrimSpace(chText(w[0])) != "Up" {
		t.Errorf("the trend word is not there for screen readers")
	}
	chContains(t, "description", chTexts(chFind(doc, chClass("mt-desc"))), "Month to date")
	if icon := chFind(doc, chClass("mt-icon")); len(icon) != 1 {
		t.Errorf("no icon for 💰")
	}
}

func TestMetricTrendWordShowsWhenThereIsNoChange(t *testing.T) {
	for trend, word := range map[string]string{"down": "Down", "flat": "Flat", "UP": "Up"} {
		_, doc := chRender(t, "metric", `{"value":3,"trend":"`+trend+`"}`)
		tr := chFind(doc, chClass("mt-trend"))
		if len(tr) != 1 || strings.TrimSpace(chText(tr[0])) != word || len(chFind(tr[0], chClass("visually-hidden"))) != 0 {
			t.Errorf("trend %q reads %v", trend, chTexts(tr))
		}
	}
	_, doc := chRender(t, "metric", `{"value":3,"trend":"sideways"}`)
	if len(chFind(doc, chClass("mt-trend"))) != 0 {
		t.Errorf("an unknown trend drew an arrow")
	}
}

func TestMetricItemsAreAGridOfCards(t *testing.T) {
	out, doc := chRender(t, "metric", `{"title":"KPIs","items":[{"label":"Users","value":12000,"trend":"up","trend_value":"+5%","sparkline":[1,2,null,3]},
		{"label":"Churn","value":"2%","trend":"down"},{"value":2024}]}`)
	cards := chFind(doc, chClass("mt-card"))
	if len(cards) != 3 || cards[0].Parent.Data != "ul" {
		t.Fatalf("want 3 cards in a list, got %d", len(cards))
	}
	got := chTexts(cards)
	chContains(t, "first", got[:1], "Users", "12,000", "Up", "+5%", "Recent values: 3 values (1 gap) from 1 to 3, last 3.")
	chContains(t, "second", got[1:2], "Churn", "2%", "Down")
	chContains(t, "third", got[2:], "Metric 3", "2024")
	if n := len(chFind(cards[0], chClass("ch-spark"))); n != 1 {
		t.Errorf("the first card has %d sparklines", n)
	}
	if !strings.Contains(out, `class="ch-series mt-up"`) {
		t.Errorf("the sparkline does not take the trend's colour")
	}
	if len(chFind(doc, chClass("mt-one"))) != 0 {
		t.Errorf("a single figure drawn for a list-only metric")
	}
}

func TestMetricBothFormsSingleFirst(t *testing.T) {
	_, doc := chRender(t, "metric", `{"title":"Uptime","value":"99.9%","items":[{"label":"API","value":"99.95%"}]}`)
	var order []string
	walk(doc, func(n *html.Node) {
		if hasClass(n, "mt-one") || hasClass(n, "mt-grid") {
			order = append(order, attr(n, "class"))
		}
	})
	if strings.Join(order, ",") != "mt-one,mt-grid" {
		t.Errorf("order %v", order)
	}
}

func TestMetricHostileAndOddData(t *testing.T) {
	for _, h := range chHostileStrings {
		q := strings.ReplaceAll(strings.ReplaceAll(h, `\`, `\\`), `"`, `\"`)
		data := strings.ReplaceAll(`{"title":"H","value":"H","change":"H","trend":"H","description":"H","icon":"H",
			"items":[{"label":"H","value":"H","trend":"H","trend_value":"H","sparkline":[1,"H",2]}]}`, "H", q)
		out, doc := chRender(t, "metric", data)
		chSafe(t, out)
		if !strings.Contains(chText(doc), h) {
			t.Errorf("the hostile text is not shown as text: %q", h)
		}
	}
	for _, data := range []string{`null`, `{}`, `{"value":null}`, `{"value":{"a":1},"items":"x"}`, `{"items":[null,1,"x",{}]}`,
		`{"value":1e400,"items":[{"value":-1e400,"sparkline":[1e400,-1e400,"NaN"]}]}`, `{"items":[]}`} {
		out, _ := chRender(t, "metric", data)
		chSafe(t, out)
	}
	var items []string
	for i := 0; i < 1500; i++ {
		items = append(items, `{"label":"m","value":1}`)
	}
	_, doc := chRender(t, "metric", `{"items":[`+strings.Join(items, ",")+`]}`)
	if n := len(chFind(doc, chClass("mt-card"))); n != maxItems {
		t.Errorf("%d cards drawn", n)
	}
	chContains(t, "note", chTexts(chFind(doc, chClass("ch-note"))), "500 more metrics not shown.")
}

func TestMetricValueKeepsWhatTheAgentWrote(t *testing.T) {
	for in, want := range map[string]string{"12000": "12,000", "2024": "2024", "-45000": "-45,000", "$1.2M": "$1.2M",
		"3.14159": "3.14159", "0012345": "0012345", " 42 ": "42", "1e5": "1e5"} {
		if got := metricValue(in); got != want {
			t.Errorf("metricValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMetricTrendColourFollowsWhatTheAgentCallsGood: with good: "down", "Failed
// payments ↑" is red and says "worse"; a fall is green and says "better"; an item
// takes the block's good unless it has its own; without good, up stays green and
// down red as before; the sparkline takes the same colour as the trend.
func TestMetricTrendColourFollowsWhatTheAgentCallsGood(t *testing.T) {
	for _, c := range []struct {
		data, class, words string
	}{
		{`{"title":"Failed payments","value":42,"change":"+12%","trend":"up","good":"down"}`, "mt-t-bad", "Up, worse +12%"},
		{`{"title":"Failed payments","value":30,"change":"-8%","trend":"down","good":"down"}`, "mt-t-good", "Down, better -8%"},
		{`{"title":"Revenue","value":30,"trend":"down","good":"up"}`, "mt-t-bad", "Down, worse"},
		{`{"title":"Revenue","value":30,"trend":"up","good":"UP"}`, "mt-t-good", "Up, better"},
		{`{"value":30,"trend":"flat","good":"down"}`, "mt-t-flat", "Flat"},
		{`{"value":30,"trend":"up"}`, "mt-t-up", "Up"},
		{`{"value":30,"trend":"down"}`, "mt-t-down", "Down"},
		{`{"value":30,"trend":"up","good":"sideways"}`, "mt-t-up", "Up"},
	} {
		_, doc := chRender(t, "metric", c.data)
		tr := chFind(doc, chClass("mt-trend"))
		if len(tr) != 1 || !hasClass(tr[0], c.class) {
			t.Errorf("%s: trend %v is not %s", c.data, chTexts(tr), c.class)
			continue
		}
		if got := strings.Join(strings.Fields(chText(tr[0])), " "); got != c.words {
			t.Errorf("%s: trend reads %q, want %q", c.data, got, c.words)
		}
	}
	out, doc := chRender(t, "metric", `{"good":"down","items":[{"label":"Failed payments","value":42,"trend":"up","sparkline":[1,2,3]},
		{"label":"Revenue","value":9,"trend":"up","good":"up","sparkline":[1,2,3]}]}`)
	cards := chFind(doc, chClass("mt-card"))
	if len(cards) != 2 || len(chFind(cards[0], chClass("mt-t-bad"))) != 1 || len(chFind(cards[1], chClass("mt-t-good"))) != 1 {
		t.Fatalf("cards %v", chTexts(cards))
	}
	if !strings.Contains(out, `class="ch-series mt-bad"`) || !strings.Contains(out, `class="ch-series mt-good"`) {
		t.Errorf("the sparklines do not take the trend's meaning")
	}
}
