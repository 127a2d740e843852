package render

// Tests of the board blocks: comparison, kanban and tree.

import (
	"strings"
	"testing"
)

func TestComparison(t *testing.T) {
	doc, _ := stRender(t, "comparison", `{"title":"Plans","items":[
		{"label":"Pro","highlight":true,"fields":[{"key":"Price","value":"$10"},{"key":"Seats","value":5},{"key":"SSO","value":true}]},
		{"label":"Free","highlight":false,"fields":[{"key":"Price","value":0},{"key":"SSO","value":false},{"key":"Ads","value":"yes"}]}]}`, testOptions())
	stNoFallback(t, doc)
	cards := stAll(doc, stClass("cmp-card"))
	if len(cards) != 2 {
		t.Fatalf("%d cards", len(cards))
	}
	if !hasClass(cards[0], "cmp-hl") || hasClass(cards[1], "cmp-hl") {
		t.Errorf("the highlighted option is not marked")
	}
	if rec := stAll(cards[0], stClass("cmp-rec")); len(rec) != 1 || stText(rec[0]) != "Recommended" {
		t.Errorf("the recommended option does not say so in words")
	}
	if len(stAll(cards[1], stClass("cmp-rec"))) != 0 {
		t.Errorf("a plain option says Recommended")
	}
	// Every card lists the union of the keys in first-seen order.
	for i, want := range []string{
		"Pro Recommended Price $10 Seats 5 SSO Yes Ads — not given",
		"Free Price 0 Seats — not given SSO No Ads yes",
	} {
		if got := stText(cards[i]); got != want {
			t.Errorf("card %d reads %q, want %q", i, got, want)
		}
		if dts := stAll(cards[i], stTag("dt")); len(dts) != 4 {
			t.Errorf("card %d has %d keys", i, len(dts))
		}
	}
	// Option labels are headings one level below the block's title (h2 -> h3).
	if h := stAll(cards[0], stTag("h3")); len(h) != 1 || stText(h[0]) != "Pro" {
		t.Errorf("option label is not an h3")
	}
	// Without a title the labels take the title's level.
	doc, _ = stRender(t, "comparison", `{"items":[{"label":"A"}]}`, testOptions())
	if h := stAll(doc, stTag("h2")); len(h) != 1 || stText(h[0]) != "A" {
		t.Errorf("untitled comparison: option label is not an h2")
	}
}

func TestKanban(t *testing.T) {
	doc, _ := stRender(t, "kanban", `{"title":"Board","columns":[
		{"label":"Todo","cards":[{"title":"Write spec","description":"by Friday","badge":"P1"},{"title":"Review"}]},
		{"label":"Done","cards":[]},
		{"cards":[{}]}]}`, testOptions())
	stNoFallback(t, doc)
	scroll := stAll(doc, stClass("kb-scroll"))
	if len(scroll) != 1 || attr(scroll[0], "tabindex") != "0" || attr(scroll[0], "role") != "region" || attr(scroll[0], "aria-label") != "Board, columns" {
		t.Errorf("the board is not a named, keyboard-scrollable region")
	}
	cols := stAll(doc, stClass("kb-col"))
	if len(cols) != 3 {
		t.Fatalf("%d columns", len(cols))
	}
	for i, want := range []string{
		"Todo 2 cards Write spec by Friday P1 Review",
		"Done 0 cards No cards",
		"Untitled 1 card Untitled",
	} {
		if got := stText(cols[i]); got != want {
			t.Errorf("column %d reads %q, want %q", i, got, want)
		}
	}
	if b := stAll(cols[0], stClass("kb-badge")); len(b) != 1 || stText(b[0]) != "P1" {
		t.Errorf("badge")
	}
	if h := stAll(cols[0], stTag("h3")); len(h) != 1 || stText(h[0]) != "Todo" {
		t.Errorf("column label is not an h3")
	}
}

func TestKanbanCardsAreBoundedOverTheWholeBoard(t *testing.T) {
	cards := `[` + strings.TrimSuffix(strings.Repeat(`{"title":"c"},`, 600), ",") + `]`
	doc, out := stRender(t, "kanban", `{"columns":[{"label":"A","cards":`+cards+`},{"label":"B","cards":`+cards+`}]}`, testOptions())
	if n := len(stAll(doc, stClass("kb-card"))); n != maxItems {
		t.Errorf("%d cards drawn, want %d", n, maxItems)
	}
	if !strings.Contains(out, "200 more cards not shown.") {
		t.Errorf("no note of the cards left out")
	}
	if c := stAll(doc, stClass("kb-count")); stText(c[1]) != "600 cards" {
		t.Errorf("the count must be the column's full count: %q", stText(c[1]))
	}
}

func TestTree(t *testing.T) {
	doc, _ := stRender(t, "tree", `{"title":"Files","nodes":[
		{"label":"src","icon":"📁","children":[{"label":"main.go"},{"label":"lib","children":[{"label":"a.go","icon":"📄"}]}]},
		{"label":"README.md","icon":"unknown-icon"}]}`, testOptions())
	stNoFallback(t, doc)
	top := stAll(doc, stClass("tree"))
	if len(top) != 1 || top[0].Data != "ul" {
		t.Fatalf("no tree list")
	}
	details := stAll(doc, stTag("details"))
	if len(details) != 2 {
		t.Fatalf("%d branches, want 2", len(details))
	}
	for _, d := range details {
		if !stHas(d, "open") {
			t.Errorf("a branch is closed by default")
		}
	}
	sum := stAll(details[0], stTag("summary"))
	if stText(sum[0]) != "src" || len(stAll(sum[0], stTag("svg"))) != 2 { // chevron + folder
		t.Errorf("branch summary %q", stText(sum[0]))
	}
	leaves := stAll(doc, stClass("tree-leaf"))
	if len(leaves) != 3 || stText(leaves[2]) != "README.md" || len(stAll(leaves[2], stTag("svg"))) != 0 {
		t.Errorf("leaves: %d", len(leaves))
	}
	if got := stText(top[0]); got != "src main.go lib a.go README.md" {
		t.Errorf("tree reads %q", got)
	}
}

func TestTreeDepthAndSizeAreBounded(t *testing.T) {
	// 200 levels deep: drawn to treeDepth levels, then a note.
	deep := `{"label":"leaf"}`
	for i := 0; i < 200; i++ {
		deep = `{"label":"n","children":[` + deep + `]}`
	}
	doc, out := stRender(t, "tree", `{"nodes":[`+deep+`]}`, testOptions())
	stNoFallback(t, doc)
	if n := len(stAll(doc, stTag("details"))); n != treeDepth {
		t.Errorf("%d levels drawn, want %d", n, treeDepth)
	}
	if !strings.Contains(out, "1 more nested too deeply to show.") {
		t.Errorf("no note of the levels left out")
	}
	// A wide tree: maxItems nodes in all, the rest counted.
	kids := `[` + strings.TrimSuffix(strings.Repeat(`{"label":"k"},`, 700), ",") + `]`
	doc, out = stRender(t, "tree", `{"nodes":[{"label":"a","children":`+kids+`},{"label":"b","children":`+kids+`},{"label":"c"}]}`, testOptions())
	if n := len(stAll(doc, stClass("tree-node"))); n != maxItems {
		t.Errorf("%d nodes drawn, want %d", n, maxItems)
	}
	if !strings.Contains(out, "402 more not shown.") || !strings.Contains(out, "1 more items not shown.") {
		t.Errorf("no notes of the nodes left out")
	}
}

func TestBoardsOddData(t *testing.T) {
	for typ, datas := range map[string][]string{
		"comparison": {`{}`, `{"items":"x"}`, `{"items":[null,{"label":7,"highlight":"yes","fields":[null,{"key":{},"value":[1]},{"key":"k","value":null}]}]}`, `{"items":[{"fields":"x"}]}`},
		"kanban":     {`{}`, `{"columns":[null,{"label":[],"cards":"x"},{"cards":[null,{"title":5,"badge":{}}]}]}`},
		"tree":       {`{}`, `{"nodes":"x"}`, `{"nodes":[null,{"label":null,"children":"x","icon":5},{"children":[null]}]}`},
	} {
		for _, data := range datas {
			doc, _ := stRender(t, typ, data, testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
		}
	}
	many := `[` + strings.TrimSuffix(strings.Repeat(`{"label":"x","fields":[{"key":"k","value":1}]},`, maxItems+2), ",") + `]`
	_, out := stRender(t, "comparison", `{"items":`+many+`}`, testOptions())
	if !strings.Contains(out, "2 more options not shown.") {
		t.Errorf("comparison: no note of the options left out")
	}
	cols := `[` + strings.TrimSuffix(strings.Repeat(`{"label":"x"},`, maxItems+2), ",") + `]`
	_, out = stRender(t, "kanban", `{"columns":`+cols+`}`, testOptions())
	if !noteOrCut(out, "2 more columns not shown.") {
		t.Errorf("kanban: no note of the columns left out")
	}
}

func TestBoardsHostileInputIsInert(t *testing.T) {
	for typ, tmpl := range map[string]string{
		"comparison": `{"title":"t","items":[{"label":"l","highlight":true,"fields":[{"key":"k","value":"v"}]}]}`,
		"kanban":     `{"title":"t","columns":[{"label":"l","cards":[{"title":"t","description":"d","badge":"b"}]}]}`,
		"tree":       `{"title":"t","nodes":[{"label":"l","icon":"i","children":[{"label":"l","icon":"i"}]}]}`,
	} {
		for _, p := range stHostile {
			doc, out := stRender(t, typ, stFill(t, tmpl, p), testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
			if strings.Contains(out, "<script>window") || strings.Contains(out, "<svg onload") {
				t.Errorf("%s: payload survived unescaped", typ)
			}
			// The agent's icon name never becomes markup: only our own SVG icons appear.
			for _, svg := range stAll(doc, stTag("svg")) {
				if attr(svg, "class") != "icon" {
					t.Errorf("%s: a foreign <svg>", typ)
				}
			}
		}
	}
}
