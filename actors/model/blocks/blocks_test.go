package blocks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mustBlock(t testing.TB, s string) Block {
	t.Helper()
	var b Block
	if err := json.Unmarshal([]byte(s), &b); err != nil {
		t.Fatalf("bad test block %s: %v", s, err)
	}
	return b
}

func TestEveryTypeHasExamples(t *testing.T) {
	for _, name := range Types() {
		if _, ok := wellFormed[name]; !ok {
			t.Errorf("no well-formed example for %q", name)
		}
		if len(mistakes[name]) < 2 {
			t.Errorf("%q has %d mistakes, want at least 2", name, len(mistakes[name]))
		}
	}
	for name := range wellFormed {
		if !Known(name) {
			t.Errorf("example for %q, which is not in the catalog", name)
		}
	}
	if len(catalog) != 34 {
		t.Errorf("catalog has %d types, spec 2.6 lists 34", len(catalog))
	}
}

func TestWellFormedBlocksDrawNoWarning(t *testing.T) {
	examples := slices.Clone(alsoWellFormed)
	for _, name := range Types() {
		examples = append(examples, wellFormed[name])
	}
	for _, s := range examples {
		b := mustBlock(t, s)
		out, warnings := Prepare("blocks", []Block{b})
		if len(warnings) != 0 {
			t.Errorf("%s: unexpected warnings:\n  %s", b.Type, strings.Join(warnings, "\n  "))
		}
		if string(out[0].Data) != string(b.Data) {
			t.Errorf("%s: data changed:\n got %s\nwant %s", b.Type, out[0].Data, b.Data)
		}
	}
}

func TestMistakesDrawOneWarningAtTheirPath(t *testing.T) {
	for name, cases := range mistakes {
		for _, m := range cases {
			b := mustBlock(t, m.block)
			if b.Type != name {
				t.Errorf("mistake listed under %q has type %q", name, b.Type)
			}
			_, warnings := Prepare("blocks", []Block{b})
			if len(warnings) != 1 {
				t.Errorf("%s: want 1 warning at %s, got %d:\n  %s", m.block, m.path, len(warnings), strings.Join(warnings, "\n  "))
				continue
			}
			w := warnings[0]
			if !strings.HasPrefix(w, m.path+": ") || !strings.Contains(w, m.text) {
				t.Errorf("%s:\n got %s\nwant %s: ...%s...", m.block, w, m.path, m.text)
			}
			if got := Warnings("blocks[0]", b); !slices.Equal(got, warnings) {
				t.Errorf("Warnings and Prepare disagree:\n %q\n %q", got, warnings)
			}
		}
	}
}

func TestBlockLevelProblems(t *testing.T) {
	cases := []struct{ block, want string }{
		{`{"type":"text","data":"hello"}`, `blocks[0].data: expected an object, got string "hello"; send the text fields as a JSON object`},
		{`{"type":"text","data":null}`, `blocks[0].data: expected an object, got null`},
		{`{"type":"text","data":[1,2]}`, `blocks[0].data: expected an object, got an array`},
		{`{"type":"text"}`, `blocks[0].data.content: missing`},
		{`{"data":{"content":"x"}}`, `blocks[0].type: missing; send a block type name`},
		{`{"type":"layout","data":{"columns":[{"blocks":[{"type":5}]}]}}`, `blocks[0].data.columns[0].blocks[0].type: expected a string, got number 5`},
		{`{"type":"group","data":{"blocks":[{"type":"text","id":7,"data":{"content":"x"}}]}}`, `blocks[0].data.blocks[0].id: expected a string, got number 7`},
	}
	for _, c := range cases {
		_, warnings := Prepare("blocks", []Block{mustBlock(t, c.block)})
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], c.want) {
			t.Errorf("%s:\n got %q\nwant %s...", c.block, warnings, c.want)
		}
	}
	// Data that is not JSON can only come from Go callers; it is warned, not fatal.
	_, warnings := Prepare("blocks", []Block{{Type: "text", Data: json.RawMessage(`{"content":`)}})
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "blocks[0].data: is not valid JSON") {
		t.Errorf("invalid JSON data: %q", warnings)
	}
}

func TestUnknownTypesAreAcceptedSilently(t *testing.T) {
	for _, data := range []string{`{"x":1}`, `"str"`, `null`, `[1]`, `{"columns":"nope","blocks":3}`} {
		in := []Block{{Type: "hologram", Data: json.RawMessage(data)}}
		out, warnings := Prepare("blocks", in)
		if len(warnings) != 0 || string(out[0].Data) != data {
			t.Errorf("unknown type with %s: %q, %s", data, warnings, out[0].Data)
		}
	}
}

func TestRecursivePaths(t *testing.T) {
	b := mustBlock(t, `{"type":"tab","data":{"tabs":[{"label":"a","blocks":[
		{"type":"group","data":{"blocks":[
			{"type":"layout","data":{"columns":[{"blocks":[]},{"blocks":[{"type":"sparkline","data":{"values":[1,"x"]}}]}]}}]}}]}]}}`)
	want := `blocks[2].data.tabs[0].blocks[0].data.blocks[0].data.columns[1].blocks[0].data.values[1]: expected a number, got string "x"; send a JSON number`
	_, warnings := Prepare("blocks", []Block{{Type: "divider"}, {Type: "divider"}, b})
	if !slices.Equal(warnings, []string{want}) {
		t.Errorf("got %q\nwant %q", warnings, want)
	}
	if got := Warnings("page.blocks[7]", b); len(got) != 1 || !strings.HasPrefix(got[0], "page.blocks[7].data.tabs[0]") {
		t.Errorf("Warnings path prefix: %q", got)
	}
}

func TestCalloutMessageMovesToContent(t *testing.T) {
	in := []Block{
		mustBlock(t, `{"id":"c1","type":"callout","data":{"message":"Deploy <b>now</b> & then","style":"info","n":1.50}}`),
		mustBlock(t, `{"type":"group","data":{"blocks":[{"type":"callout","data":{"message":"nested"}}]}}`),
	}
	orig := string(in[0].Data)
	out, warnings := Prepare("blocks", in)
	if string(in[0].Data) != orig {
		t.Error("Prepare changed its input")
	}
	var d map[string]any
	if err := json.Unmarshal(out[0].Data, &d); err != nil {
		t.Fatal(err)
	}
	if d["content"] != "Deploy <b>now</b> & then" || d["message"] != nil || d["style"] != "info" {
		t.Errorf("top-level callout data: %s", out[0].Data)
	}
	if !strings.Contains(string(out[0].Data), `"n":1.50`) || strings.Contains(string(out[0].Data), `\u003c`) {
		t.Errorf("re-encoding must keep numbers as sent and not escape HTML: %s", out[0].Data)
	}
	if out[0].ID != "c1" || out[0].Type != "callout" {
		t.Errorf("block head changed: %+v", out[0])
	}
	if want := `{"blocks":[{"data":{"content":"nested"},"type":"callout"}]}`; string(out[1].Data) != want {
		t.Errorf("nested callout:\n got %s\nwant %s", out[1].Data, want)
	}
	want := []string{
		"blocks[0].data.message: callout text belongs in content; it was moved there, send content instead of message",
		"blocks[1].data.blocks[0].data.message: callout text belongs in content; it was moved there, send content instead of message",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("got %q\nwant %q", warnings, want)
	}
	one, w := PrepareBlock("blocks[4]", in[0])
	if !strings.Contains(string(one.Data), `"content"`) || len(w) != 1 || !strings.HasPrefix(w[0], "blocks[4].data.message") {
		t.Errorf("PrepareBlock: %s %q", one.Data, w)
	}
}

func TestDuplicateIDs(t *testing.T) {
	in := []Block{
		mustBlock(t, `{"id":"a","type":"text","data":{"content":"x"}}`),
		mustBlock(t, `{"type":"group","data":{"blocks":[{"id":"a","type":"divider"}]}}`),
	}
	_, warnings := Prepare("blocks", in)
	want := `blocks[1].data.blocks[0].id: duplicate id "a" (already used by blocks[0])`
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
		t.Errorf("got %q, want %s", warnings, want)
	}
}

func TestWarningsAreCapped(t *testing.T) {
	bs := make([]Block, 150)
	for i := range bs {
		bs[i] = Block{Type: "text", Data: json.RawMessage(`{}`)}
	}
	_, warnings := Prepare("blocks", bs)
	if len(warnings) != maxWarnings+1 || warnings[maxWarnings] != "blocks: 50 more warnings not shown; fix the ones above and send again" {
		t.Errorf("got %d warnings, last %q", len(warnings), warnings[len(warnings)-1])
	}
	_, warnings = Prepare("blocks", []Block{{Type: "sparkline", Data: json.RawMessage(`{"values":[1,"a","b","c",null,2]}`)}})
	want := `blocks[0].data.values[1]: expected a number, got string "a"; send a JSON number (2 more elements have the same problem)`
	if !slices.Equal(warnings, []string{want}) {
		t.Errorf("got %q\nwant %q", warnings, want)
	}
}

func TestPathsQuoteOddKeysAndClipLongValues(t *testing.T) {
	long := strings.Repeat("é", 100)
	b := Block{Type: "table", Data: json.RawMessage(fmt.Sprintf(`{"columns":[{"key":"a"}],"rows":[{"a":1,"a b\n":2,%q:3}],"footer":%q}`, long, long))}
	_, warnings := Prepare("blocks", []Block{b})
	for _, w := range warnings {
		if strings.Contains(w, "\n") || len(w) > 400 {
			t.Errorf("warning not one short line: %q", w)
		}
	}
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], `blocks[0].data.rows[0]["a b\n"]: "a b\n" is not a column key`) {
		t.Errorf("got %q", warnings)
	}
}

func TestNilAndEmpty(t *testing.T) {
	if out, w := Prepare("blocks", nil); out != nil || w != nil {
		t.Errorf("nil: %v %v", out, w)
	}
	if out, w := Prepare("blocks", []Block{}); len(out) != 0 || w != nil {
		t.Errorf("empty: %v %v", out, w)
	}
}
