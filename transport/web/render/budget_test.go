package render

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/actors/model/blocks"
)

// The bounds these tests hold the renderer to, written out (limits.go): a block
// draws at most 8 × its data + 32 KiB (a chart or heatmap 64 ×), a page's blocks
// at most 4 MiB plus the note of what was left out.
func roomOf(typ, data string) int {
	if typ == "chart" || typ == "heatmap" {
		return 64*len(data) + 32<<10
	}
	return 8*len(data) + 32<<10
}

const pageCap, noteCap = 4 << 20, 1 << 10

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func list(n int, item string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// refLinks is the page: one reference definition with a 50,000-character
// address used 4,000 times (66 KB), which drew 200 MB.
var refLinks = "[r]: https://x.example/" + strings.Repeat("a", 50_000) + "\n\n" + strings.Repeat("[r] ", 4000)

// TestAmplifyingBlocksStayWithinTheirRoom: for input built to amplify, each block
// type draws at most its room, and where the input asked for more, the block says
// so inside its own box (the truncation note; a chart too large to draw says so
// above its table).
func TestAmplifyingBlocksStayWithinTheirRoom(t *testing.T) {
	many := func(n int, s string) string { return strings.Repeat(s, n) }
	// A GFM table whose 2,000-column header meets 10,000 one-cell rows.
	wideTable := "|" + many(2000, "a|") + "\n|" + many(2000, "-|") + "\n" + many(10_000, "|x\n")
	// A reference with a 2,000-character address (under any per-link cap) used
	// 20,000 times.
	manyRefs := "[r]: https://x.example/" + strings.Repeat("b", 2000) + "\n\n" + many(20_000, "[r] ")
	// Reference titles repeat too.
	longTitle := `[r]: https://x.example/ "` + strings.Repeat("t", 50_000) + "\"\n\n" + many(4000, "[r] ")
	cases := []struct {
		name, typ, data string
		cut             bool // the input asks for more than the room: a note must say so
	}{
		{"reference links", "rich_text", `{"content":` + jsonText(refLinks) + `}`, false},
		{"many short references", "rich_text", `{"content":` + jsonText(manyRefs) + `}`, false},
		{"reference titles", "rich_text", `{"content":` + jsonText(longTitle) + `}`, false},
		{"wide markdown table", "rich_text", `{"content":` + jsonText(wideTable) + `}`, false},
		{"callout", "callout", `{"content":` + jsonText(refLinks) + `}`, false},
		{"thread", "thread", `{"messages":[{"author":"a","content":` + jsonText(refLinks) + `},{"author":"b","content":` + jsonText(manyRefs) + `}]}`, false},
		{"heatmap of labels", "heatmap", `{"rows":` + list(100, `"r"`) + `,"columns":` + list(100, `"c"`) + `}`, false},
		{"chart", "chart", `{"chart_type":"bar","data":{"labels":` + list(1000, `"l"`) + `,"datasets":` + list(24, `{"data":`+list(1000, "1")+`}`) + `}}`, true},
		{"table of empty rows", "table", `{"columns":` + list(100, `{"key":"k"}`) + `,"rows":` + list(500, "{}") + `}`, true},
		{"unknown block", "some_future_type", `{"a":` + list(400, `""`) + `,"b":` + list(100, strconv.Quote(strings.Repeat("<", 2000))) + `}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			start := time.Now()
			Block(&buf, blocks.Block{ID: "b1", Type: tc.typ, Data: json.RawMessage(tc.data)}, testOptions())
			out := buf.String()
			t.Logf("%s: %d bytes of data drew %d bytes in %v", tc.name, len(tc.data), len(out), time.Since(start))
			if len(out) > roomOf(tc.typ, tc.data) {
				t.Errorf("%d bytes drawn for %d bytes of data (room %d)", len(out), len(tc.data), roomOf(tc.typ, tc.data))
			}
			// "Content truncated. This block is larger than …", or a chart's own "The
			// chart is larger than …" above its table.
			if tc.cut && !strings.Contains(out, "larger than the review page draws") {
				t.Errorf("no note that the block was cut")
			}
			if tc.typ != "chart" && !strings.Contains(out, "r r r") && strings.Contains(tc.data, "[r]") {
				t.Errorf("the text is not shown: %.500s", out)
			}
			if !strings.HasSuffix(strings.TrimSpace(out), "</section>") {
				t.Errorf("the block's box is not closed: …%s", out[max(0, len(out)-200):])
			}
		})
	}
}

// TestMarkdownIsCutWithANote: Markdown that draws past its room (8 × its length +
// 4 KiB) stops at a whole top-level element and says so; links and images past
// the address budget are drawn as their text.
func TestMarkdownIsCutWithANote(t *testing.T) {
	// Nested quotes: 2 bytes of source for 26 bytes of HTML each.
	src := strings.Repeat("> ", 3000) + "deep\n\n" + strings.Repeat("more text\n\n", 10)
	out := string(markdown(src))
	if len(out) > 8*len(src)+4<<10+1<<10 {
		t.Errorf("%d bytes for %d of Markdown", len(out), len(src))
	}
	if !strings.Contains(out, "Content truncated.") {
		t.Errorf("no truncation note: %.300s", out)
	}
	// The reference-link page: the text stays, the 50,000-character address is not
	// repeated 4,000 times.
	out = string(markdown(refLinks))
	if len(out) > 8*len(refLinks)+4<<10 {
		t.Errorf("reference links: %d bytes", len(out))
	}
	if strings.Count(out, "aaaaaaaaaa") > 0 || strings.Count(out, "r ") < 3999 {
		t.Errorf("reference links: the address is drawn, or the text is lost: %.300s", out)
	}
	// An ordinary reference link is still a link.
	if out := string(markdown("see [the docs][d]\n\n[d]: https://example.com/docs")); !strings.Contains(out, `href="https://example.com/docs"`) {
		t.Errorf("ordinary reference link: %s", out)
	}
}

// TestPageIsCutAtItsCap: a page of many blocks that each draw much more than their
// data (within their own rooms) stops at the page's cap with a note of how many
// blocks were left out.
func TestPageIsCutAtItsCap(t *testing.T) {
	data := `{"a":` + list(480, `""`) + `}` // ~1.5 KB drawn as ~17 KB
	var list []blocks.Block
	for i := range 600 {
		list = append(list, blocks.Block{ID: "b" + strconv.Itoa(i), Type: "some_future_type", Data: json.RawMessage(data)})
	}
	var buf bytes.Buffer
	Page(&buf, list, testOptions())
	out := buf.String()
	t.Logf("600 blocks of %d bytes: %d bytes", len(data), len(out))
	if len(out) > pageCap+noteCap {
		t.Errorf("page drew %d bytes (cap %d)", len(out), pageCap)
	}
	if !strings.Contains(out, "more blocks are not shown") {
		t.Errorf("no note of the blocks left out")
	}
	// The live fragment of one block is bounded the same way.
	buf.Reset()
	Block(&buf, blocks.Block{ID: "x", Type: "rich_text", Data: json.RawMessage(`{"content":` + jsonText(refLinks) + `}`)}, testOptions())
	if buf.Len() > roomOf("rich_text", `{"content":`+jsonText(refLinks)+`}`) {
		t.Errorf("block fragment: %d bytes", buf.Len())
	}
}

// TestCutClosesWhatWasOpen: a block cut in the middle of nested markup ends with
// every element closed, the note inside the block's box.
func TestCutClosesWhatWasOpen(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString("<p>before</p>")
	start := buf.Len()
	buf.WriteString(`<section class="blk"><div><ul><li><img src="x"><b>bold &am`)
	cut(&buf, start, "[NOTE]")
	want := `<p>before</p><section class="blk"><div><ul><li><img src="x"><b>bold </b></li></ul></div>[NOTE]</section>` + "\n"
	if buf.String() != want {
		t.Errorf("got  %s\nwant %s", buf.String(), want)
	}
	buf.Reset()
	buf.WriteString(`<section><div><a href="x" title="y`)
	cut(&buf, 0, "[NOTE]")
	if want := "<section><div></div>[NOTE]</section>\n"; buf.String() != want {
		t.Errorf("got  %s\nwant %s", buf.String(), want)
	}
}

// TestOrdinaryBlocksAreNotCut: the budget leaves ordinary content whole: every
// block of the all-blocks page, a 30 × 30 heatmap of values and a bar chart of 200
// values draw without a truncation note or a "larger than" note.
func TestOrdinaryBlocksAreNotCut(t *testing.T) {
	row := list(30, "42")
	heat := `{"rows":` + list(30, `"Mon"`) + `,"columns":` + list(30, `"09:00"`) + `,"values":` + list(30, row) + `}`
	bars := `{"chart_type":"bar","data":{"labels":` + list(200, `"week"`) + `,"datasets":[{"label":"a","data":` + list(200, "17") + `}]}}`
	all := append(fixture(t), blocks.Block{ID: "heat", Type: "heatmap", Data: json.RawMessage(heat)},
		blocks.Block{ID: "bars", Type: "chart", Data: json.RawMessage(bars)})
	for _, b := range all {
		var buf bytes.Buffer
		Block(&buf, b, testOptions())
		if out := buf.String(); strings.Contains(out, "larger than the review page draws") || strings.Contains(out, "Only the first") {
			t.Errorf("%s (%s, %d bytes of data) was cut: %d bytes drawn", b.ID, b.Type, len(b.Data), len(out))
		}
	}
}
