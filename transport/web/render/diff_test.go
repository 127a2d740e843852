package render

// Tests of the diff block: text mode (unified and split tables, folds, changed
// words, bounds) and numeric mode (computed changes said in words).

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func diffData(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// diffRows are the body rows of the unified table, each as "kind old new text".
func diffRows(t *testing.T, doc *html.Node) []string {
	t.Helper()
	tables := txFind(doc, txByClass("diff-t-uni"))
	if len(tables) != 1 {
		t.Fatalf("want one unified table, got %d", len(tables))
	}
	var out []string
	for _, tr := range txFind(tables[0], txByTag("tr")) {
		if tr.Parent.Data != "tbody" || hasClass(tr, "diff-foldbar") {
			continue
		}
		cells := txFind(tr, txByTag("td"))
		kind := strings.TrimPrefix(attr(tr, "class"), "diff-")
		out = append(out, kind+" "+txText(cells[0])+" "+txText(cells[1])+" "+txText(cells[3]))
	}
	return out
}

func TestDiffUnified(t *testing.T) {
	out := txRender(t, "diff", diffData(t, map[string]any{"title": "Config", "old_text": "a=1\nb=2\nc=3\n",
		"new_text": "a=1\nb=20\nc=3\nd=4\n", "old_label": "before", "new_label": "after"}))
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	got := diffRows(t, doc)
	want := []string{"ctx 1 1 a=1", "del 2  b=2", "add  2 b=20", "ctx 3 3 c=3", "add  4 d=4"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
	if s := txFind(doc, txByClass("diff-sum")); len(s) != 1 || txText(s[0]) != "2 additions, 1 deletion" {
		t.Errorf("summary wrong: %s", out)
	}
	// Each change is said in words, not only by colour and sign.
	for _, tr := range txFind(doc, txByTag("tr")) {
		words := ""
		for _, n := range txFind(tr, txByClass("visually-hidden")) {
			words += txText(n)
		}
		switch {
		case hasClass(tr, "diff-add") && words != "added", hasClass(tr, "diff-del") && words != "removed":
			t.Errorf("row %q does not say its change", txText(tr))
		}
	}
	ths := txFind(doc, txByTag("th"))
	if len(ths) < 2 || txText(ths[0]) != "before" || txText(ths[1]) != "after" || attr(ths[0], "scope") != "col" {
		t.Errorf("labels are not the column headers: %s", out)
	}
	// Changed words are marked within a replaced line.
	if !strings.Contains(out, `b=2<span class="diff-x">0</span>`) {
		t.Errorf("changed characters not marked: %s", out)
	}
	if len(txFind(doc, txByClass("diff-t-split"))) != 0 {
		t.Errorf("split table drawn in unified mode")
	}
}

func TestDiffSplitDrawsBothSidesAligned(t *testing.T) {
	out := txRender(t, "diff", diffData(t, map[string]any{"old_text": "x\ny\nz\n", "new_text": "x\nY\nY2\nz\n",
		"view_mode": "split", "old_label": "v1", "new_label": "v2", "language": "python"}))
	txNoFallback(t, out)
	doc := txParse(t, out)
	split := txFind(doc, txByClass("diff-t-split"))
	if len(split) != 1 {
		t.Fatalf("no split table: %s", out)
	}
	heads := txFind(split[0], txByTag("th"))
	if len(heads) != 2 || txText(heads[0]) != "v1" || txText(heads[1]) != "v2" || attr(heads[0], "scope") != "colgroup" {
		t.Errorf("split headers wrong: %s", out)
	}
	var rows []string
	for _, tr := range txFind(split[0], txByTag("tr")) {
		if tr.Parent.Data != "tbody" {
			continue
		}
		cells := txFind(tr, txByTag("td"))
		if len(cells) != 6 {
			t.Fatalf("a split row has %d cells", len(cells))
		}
		rows = append(rows, txText(cells[0])+":"+txText(cells[2])+"|"+txText(cells[3])+":"+txText(cells[5]))
	}
	want := []string{"1:x|1:x", "2:y|2:Y", ":|3:Y2", "3:z|4:z"}
	if strings.Join(rows, " ") != strings.Join(want, " ") {
		t.Errorf("split rows\n got %q\nwant %q", rows, want)
	}
	// The unified table is drawn too, for narrow containers (CSS picks one).
	if len(txFind(doc, txByClass("diff-t-uni"))) != 1 || len(txFind(doc, txByClass("diff-has-split"))) != 1 {
		t.Errorf("no unified fallback for narrow screens: %s", out)
	}
}

// TestDiffFoldsLongUnchangedRunsBehindADisclosure: a run of more than 8 unchanged
// lines keeps 3 lines of context beside each change, and the rest sit behind an
// "N unchanged lines" <details> (which opens without script; code.css shows the
// rows while it is open). Every line is still in the page.
func TestDiffFoldsLongUnchangedRunsBehindADisclosure(t *testing.T) {
	var old []string
	for i := range 60 {
		old = append(old, "line "+string(rune('A'+i%26))+string(rune('a'+i/26)))
	}
	newer := append([]string{}, old...)
	newer[30] = "changed"
	out := txRender(t, "diff", diffData(t, map[string]any{"old_text": strings.Join(old, "\n"), "new_text": strings.Join(newer, "\n")}))
	doc := txParse(t, out)
	if n := len(diffRows(t, doc)); n != 61 {
		t.Errorf("every line must be in the page: %d rows", n)
	}
	folds := txFind(doc, func(n *html.Node) bool { return n.Data == "tbody" && hasClass(n, "diff-fold") })
	if len(folds) != 2 {
		t.Fatalf("want 2 folds (before and after the change), got %d: %s", len(folds), out)
	}
	for i, want := range []string{"27 unchanged lines", "26 unchanged lines"} {
		bar := txFind(folds[i], txByClass("diff-foldbar"))
		if len(bar) != 1 {
			t.Fatalf("fold %d has %d bars", i, len(bar))
		}
		if _, hidden := txAttr(bar[0], "hidden"); hidden {
			t.Errorf("the fold bar is hidden: without script it would be lost")
		}
		d := txFind(bar[0], txByTag("details"))
		if len(d) != 1 || len(txFind(d[0], txByTag("summary"))) != 1 || strings.TrimSpace(txText(d[0])) != want {
			t.Errorf("fold %d: want a <details> whose summary reads %q, got %q", i, want, txText(bar[0]))
		}
		if _, open := txAttr(d[0], "open"); open {
			t.Errorf("fold %d starts open", i)
		}
		if rows := txFind(folds[i], func(n *html.Node) bool { return n.Data == "tr" && !hasClass(n, "diff-foldbar") }); len(rows) != []int{27, 26}[i] {
			t.Errorf("fold %d holds %d rows", i, len(rows))
		}
	}
	// 3 lines of context either side of the change stay outside the folds.
	if txt := txText(doc); !strings.Contains(txt, "line Eb") || !strings.Contains(txt, "line Hb") {
		t.Errorf("the context lines are missing")
	}

	// 8 unchanged lines between two changes stay; 9 fold down to 3 + 3.
	for _, c := range []struct{ between, folded int }{{8, 0}, {9, 3}, {20, 14}} {
		a := []string{"x"}
		for i := range c.between {
			a = append(a, "same "+string(rune('a'+i)))
		}
		a = append(a, "y")
		b := append([]string{"X"}, a[1:len(a)-1]...)
		b = append(b, "Y")
		doc := txParse(t, txRender(t, "diff", diffData(t, map[string]any{"old_text": strings.Join(a, "\n"), "new_text": strings.Join(b, "\n")})))
		folds := txFind(doc, func(n *html.Node) bool { return n.Data == "tbody" && hasClass(n, "diff-fold") })
		got := 0
		for _, f := range folds {
			got += len(txFind(f, func(n *html.Node) bool { return n.Data == "tr" && !hasClass(n, "diff-foldbar") }))
		}
		if got != c.folded {
			t.Errorf("%d unchanged lines between changes: %d folded, want %d", c.between, got, c.folded)
		}
	}
}

func TestDiffTextEdgeCases(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		summary  string
		note     string
		rows     int
	}{
		{"identical", "a\nb\n", "a\nb\n", "No changes", "", 2},
		{"only the last line end", "a\n", "a", "No changes", "line end after the last line", 1},
		{"both empty", "", "", "No changes", "", 0},
		{"all new", "", "x\ny", "2 additions, 0 deletions", "", 2},
		{"all removed", "x\n", "", "0 additions, 1 deletion", "", 1},
		{"CRLF against LF", "a\r\nb\r\n", "a\nb\n", "No changes", "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := txRender(t, "diff", diffData(t, map[string]any{"old_text": tc.old, "new_text": tc.new}))
			txNoFallback(t, out)
			doc := txParse(t, out)
			if s := txFind(doc, txByClass("diff-sum")); len(s) != 1 || txText(s[0]) != tc.summary {
				t.Errorf("summary: %s", out)
			}
			if tc.note != "" && !strings.Contains(out, tc.note) {
				t.Errorf("note %q missing: %s", tc.note, out)
			}
			if tc.rows == 0 {
				if len(txFind(doc, txByTag("table"))) != 0 {
					t.Errorf("a table for two empty texts: %s", out)
				}
				return
			}
			if n := len(diffRows(t, doc)); n != tc.rows {
				t.Errorf("%d rows, want %d", n, tc.rows)
			}
		})
	}
}

// Texts over the bounds are not compared line by line; both are shown whole.
func TestDiffOverTheBoundsIsNotCompared(t *testing.T) {
	big := strings.Repeat("line\n", diffMaxLines+1)
	out := txRender(t, "diff", diffData(t, map[string]any{"old_text": big, "new_text": "x<script>\n", "old_label": "A"}))
	txNoFallback(t, out)
	doc := txParse(t, out)
	if !strings.Contains(out, "too long to compare") || len(txFind(doc, txByTag("table"))) != 0 {
		t.Errorf("a large diff was compared")
	}
	det := txFind(doc, txByTag("details"))
	if len(det) != 2 || strings.Contains(out, " open") {
		t.Fatalf("want both texts in closed details: %s", out[:min(len(out), 2000)])
	}
	if !strings.Contains(txText(det[0]), "A (5,001 lines)") || !strings.Contains(txText(det[1]), "x<script>") || len(txFind(doc, txByTag("script"))) != 0 {
		t.Errorf("texts not shown escaped")
	}
}

func TestDiffNumeric(t *testing.T) {
	out := txRender(t, "diff", `{"title":"Costs","old_label":"May","new_label":"June","items":[
		{"label":"Compute","old":120,"new":95.5,"unit":"EUR"},{"label":"Storage","old":10,"new":12,"unit":"$"},
		{"label":"Seats","old":40,"new":40},{"label":"Errors","old":0,"new":3},{"label":"Rate","old":"2.5","new":"3","unit":"%"},
		{"label":"Broken","old":"n/a","new":1e400}]}`)
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	ths := txFind(doc, func(n *html.Node) bool { return n.Data == "th" && attr(n, "scope") == "col" })
	var heads []string
	for _, th := range ths {
		heads = append(heads, txText(th))
	}
	if strings.Join(heads, ",") != "Item,May,June,Change" {
		t.Errorf("headers %q", heads)
	}
	want := map[string]string{
		"Compute": "120 EUR|95.5 EUR|−24.5 EURdown 20.4%",
		"Storage": "$10|$12|+$2up 20%",
		"Seats":   "40|40|0no change",
		"Errors":  "0|3|+3up",
		"Rate":    "2.5%|3%|+0.5%up 20%",
		"Broken":  "—|—|—",
	}
	for _, tr := range txFind(doc, txByTag("tr")) {
		rh := txFind(tr, func(n *html.Node) bool { return n.Data == "th" && attr(n, "scope") == "row" })
		if len(rh) != 1 {
			continue
		}
		var cells []string
		for _, td := range txFind(tr, txByTag("td")) {
			cells = append(cells, strings.TrimSpace(txText(td)))
		}
		label := txText(rh[0])
		if got := strings.Join(cells, "|"); got != want[label] {
			t.Errorf("%s: got %q, want %q", label, got, want[label])
		}
		delete(want, label)
		// Direction is shown by an arrow icon as well as in words.
		if label == "Compute" && len(txFind(tr, txByTag("svg"))) != 1 {
			t.Errorf("no arrow for a change")
		}
	}
	if len(want) != 0 {
		t.Errorf("rows missing: %v", want)
	}
}

func TestDiffWordsAndFoldHelpers(t *testing.T) {
	ra, rb := diffWords("timeout = 30", "timeout = 45")
	if len(ra) != 1 || len(rb) != 1 || "timeout = 30"[ra[0][0]:ra[0][1]] != "30" || "timeout = 45"[rb[0][0]:rb[0][1]] != "45" {
		t.Errorf("diffWords = %v %v", ra, rb)
	}
	if ra, rb := diffWords("completely different", "nothing alike here"); ra != nil || rb != nil {
		t.Errorf("a rewritten line should not be marked word by word")
	}
	if ra, _ := diffWords(strings.Repeat("a", diffWordMax+1), "b"); ra != nil {
		t.Errorf("long lines are not compared word by word")
	}
	rows := make([]int, 20)
	ctx := make([]bool, 20)
	for i := range ctx {
		ctx[i] = i != 10
	}
	segs := diffFold(rows, ctx, 4)
	var shape []int
	for _, s := range segs {
		shape = append(shape, s.Fold, len(s.Rows))
	}
	// 10 unchanged above (7 fold, 3 kept), the change, 9 below (3 kept, 6 fold).
	want := []int{7, 7, 0, 7, 6, 6}
	// (more than diffFoldOver = 8 fold; diffContext = 3 stay beside the change)
	if len(shape) != len(want) {
		t.Fatalf("segments %v, want %v", shape, want)
	}
	for i := range want {
		if shape[i] != want[i] {
			t.Fatalf("segments %v, want %v", shape, want)
		}
	}
}
