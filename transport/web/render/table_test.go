package render

// Tests of the table and key_value blocks.

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// tableCells are the body rows of the first table as text, cells joined by "|".
func tableCells(doc *html.Node) []string {
	var out []string
	bodies := txFind(doc, txByTag("tbody"))
	if len(bodies) == 0 {
		return nil
	}
	for _, tr := range txFind(bodies[0], txByTag("tr")) {
		var cells []string
		for _, td := range txFind(tr, txByTag("td")) {
			cells = append(cells, txText(td))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

func TestTable(t *testing.T) {
	out := txRender(t, "table", `{"title":"Hosts","sortable":true,"max_rows":2,"footer":"3 hosts",
		"columns":[{"key":"host","label":"Host","width":"40%","align":"left"},{"key":"cpu","label":"CPU %"},{"key":"note","align":"center"},{"key":"up"}],
		"rows":[{"host":"a","cpu":12.5,"note":"ok","up":true},{"host":"b","cpu":"1,080","note":null},{"host":"c","cpu":3,"stray":"x"}]}`)
	txNoFallback(t, out)
	doc := txParse(t, out)
	txNoInline(t, doc)
	tables := txFind(doc, txByTag("table"))
	if len(tables) != 1 {
		t.Fatalf("want one table: %s", out)
	}
	tb := tables[0]
	if attr(tb, "aria-labelledby") != "blk-b1-h" || len(txFind(doc, func(n *html.Node) bool { return attr(n, "id") == "blk-b1-h" })) != 1 {
		t.Errorf("the table is not labelled by the block's heading: %s", out)
	}
	if _, ok := txAttr(tb, "data-sortable"); !ok || attr(tb, "data-max-rows") != "2" {
		t.Errorf("sortable / max_rows not passed to the script: %s", out)
	}
	var heads []string
	for _, th := range txFind(tb, txByTag("th")) {
		if attr(th, "scope") != "col" {
			t.Errorf("header %q without scope=col", txText(th))
		}
		heads = append(heads, txText(th)+"/"+attr(th, "class"))
	}
	if got := strings.Join(heads, ","); got != "Host/,CPU %/al-right,Note/al-center,Up/" {
		t.Errorf("headers %q", got)
	}
	cols := txFind(tb, txByTag("col"))
	if len(cols) != 4 || attr(cols[0], "class") != "w-40" {
		t.Errorf("width not on <col>: %s", out)
	}
	want := []string{"a|12.5|ok|Yes", "b|1,080||", "c|3||"}
	if got := tableCells(doc); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cells\n got %q\nwant %q", got, want)
	}
	// Every row is in the page: without script nothing is hidden.
	for _, tr := range txFind(tb, txByTag("tr")) {
		if _, hidden := txAttr(tr, "hidden"); hidden {
			t.Errorf("a row is hidden without script")
		}
	}
	// Numbers carry their value for sorting.
	tds := txFind(tb, txByTag("td"))
	if attr(tds[1], "data-n") != "12.5" || attr(tds[5], "data-n") != "1080" || attr(tds[0], "data-n") != "" {
		t.Errorf("sort values wrong: %s", out)
	}
	foot := txFind(tb, txByTag("tfoot"))
	if len(foot) != 1 || txText(foot[0]) != "3 hosts" || attr(txFind(foot[0], txByTag("td"))[0], "colspan") != "4" {
		t.Errorf("footer wrong: %s", out)
	}
	wrap := txFind(doc, txByClass("tbl-wrap"))
	if len(wrap) != 1 || attr(wrap[0], "tabindex") != "0" {
		t.Errorf("the scrolling wrapper is not focusable: %s", out)
	}
}

func TestTableVariants(t *testing.T) {
	cases := []struct {
		name, data string
		heads      string
		cells      []string
		check      func(t *testing.T, doc *html.Node, out string)
	}{
		{"rows as arrays", `{"columns":[{"key":"a","label":"A"},{"key":"b"}],"rows":[["x",1],["y"]]}`, "A,B", []string{"x|1", "y|"}, nil},
		{"no columns: keys of the rows", `{"rows":[{"zeta":1,"alpha":"a"},{"beta":true}]}`, "Alpha,Beta,Zeta", []string{"a||1", "|Yes|"}, nil},
		{"no rows", `{"columns":[{"key":"a"}],"rows":[]}`, "A", []string{"No rows."}, nil},
		{"no title, no label", `{"columns":[{"key":"v"}],"rows":[{"v":"N/A"},{"v":"3"},{"v":1}]}`, "V", []string{"N/A", "3", "1"},
			func(t *testing.T, doc *html.Node, out string) {
				if strings.Contains(out, "aria-labelledby") {
					t.Errorf("labelled by a heading that does not exist: %s", out)
				}
				// A column mixing text and numbers is not right-aligned.
				if strings.Contains(out, "al-right") {
					t.Errorf("mixed column right-aligned: %s", out)
				}
			}},
		{"max_rows not below the rows", `{"columns":[{"key":"a"}],"rows":[{"a":1}],"max_rows":5,"sortable":true}`, "A", []string{"1"},
			func(t *testing.T, doc *html.Node, out string) {
				if strings.Contains(out, "data-max-rows") || strings.Contains(out, "data-sortable") {
					t.Errorf("a one-row table needs neither paging nor sorting: %s", out)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := txRender(t, "table", tc.data)
			txNoFallback(t, out)
			doc := txParse(t, out)
			var heads []string
			for _, th := range txFind(doc, txByTag("th")) {
				heads = append(heads, txText(th))
			}
			if strings.Join(heads, ",") != tc.heads {
				t.Errorf("headers %q, want %q", heads, tc.heads)
			}
			if got := tableCells(doc); strings.Join(got, " ") != strings.Join(tc.cells, " ") {
				t.Errorf("cells %q, want %q", got, tc.cells)
			}
			if tc.check != nil {
				tc.check(t, doc, out)
			}
		})
	}
}

func TestKeyValue(t *testing.T) {
	data := `{"title":"Build","layout":"%s","pairs":[{"key":"Branch","value":"main","style":"highlight","badge":"info"},
		{"key":"Tests","value":412,"badge":"success"},{"key":"Flaky","value":true,"style":"muted"},{"key":"Owner"},{"key":"State","badge":"error"}]}`
	for _, layout := range []string{"vertical", "horizontal", "grid", ""} {
		t.Run("layout "+layout, func(t *testing.T) {
			out := txRender(t, "key_value", strings.Replace(data, "%s", layout, 1))
			txNoFallback(t, out)
			doc := txParse(t, out)
			txNoInline(t, doc)
			want := layout
			if want == "" {
				want = "vertical"
			}
			dl := txFind(doc, txByTag("dl"))
			if len(dl) != 1 || !hasClass(dl[0], "kv-"+want) {
				t.Fatalf("want dl.kv-%s: %s", want, out)
			}
			dts, dds := txFind(dl[0], txByTag("dt")), txFind(dl[0], txByTag("dd"))
			if len(dts) != 5 || len(dds) != 5 {
				t.Fatalf("want 5 pairs: %s", out)
			}
			var got []string
			for i := range dts {
				got = append(got, txText(dts[i])+"="+strings.TrimSpace(txText(dds[i])))
			}
			wantPairs := "Branch=main (info),Tests=412 (success),Flaky=Yes,Owner=—,State=error"
			if strings.Join(got, ",") != wantPairs {
				t.Errorf("pairs\n got %q\nwant %q", strings.Join(got, ","), wantPairs)
			}
			pairs := txFind(dl[0], txByClass("kv-pair"))
			if !hasClass(pairs[0], "kv-highlight") || !hasClass(pairs[2], "kv-muted") {
				t.Errorf("styles not drawn: %s", out)
			}
			badges := txFind(dl[0], txByClass("kv-badge"))
			if len(badges) != 3 || !hasClass(badges[1], "kv-badge-success") || len(txFind(badges[1], txByTag("svg"))) != 1 {
				t.Errorf("badges wrong: %s", out)
			}
		})
	}
	if out := txRender(t, "key_value", `{"pairs":[]}`); !strings.Contains(out, "No values.") {
		t.Errorf("empty key_value says nothing: %s", out)
	}
}
