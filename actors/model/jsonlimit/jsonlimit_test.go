package jsonlimit

import (
	"strings"
	"testing"
)

func TestCheckNamesThePathWhereJSONNestsTooDeep(t *testing.T) {
	raw := `{"title":"x","blocks":[{"type":"tree","data":{"nodes":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}}]}`
	got := Check([]byte(raw), 10)
	if got == nil {
		t.Fatal("100 levels passed a limit of 10")
	}
	if !strings.HasPrefix(got.Path, "blocks[0].data.nodes[0][0]") || got.Limit != 10 {
		t.Fatalf("path %q limit %d", got.Path, got.Limit)
	}
}

func TestCheckAcceptsDepthUpToTheLimitAndIgnoresBracketsInStrings(t *testing.T) {
	at := strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64)
	if got := Check([]byte(at), 64); got != nil {
		t.Fatalf("64 levels refused at a limit of 64: %+v", got)
	}
	if Check([]byte(`[`+at+`]`), 64) == nil {
		t.Fatal("65 levels accepted at a limit of 64")
	}
	str := `{"a":"` + strings.Repeat(`[{\"`, 1000) + `"}`
	if got := Check([]byte(str), 4); got != nil {
		t.Fatalf("brackets inside a string counted: %+v", got)
	}
}

func TestCheckNeverFailsOnBrokenJSON(t *testing.T) {
	for _, s := range []string{``, `"`, `"\`, `}}}]]`, `{"a":`, `[[[`, `{"\"":[`} {
		_ = Check([]byte(s), 2)
	}
}

func BenchmarkCheck1MiB(b *testing.B) {
	raw := []byte(`{"blocks":[` + strings.Repeat(`{"type":"text","data":{"content":"hello \"world\" [x]"}},`, 20000) + `{}]}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if Check(raw, MaxDepth) != nil {
			b.Fatal("refused")
		}
	}
}

func TestScanNamesTheStringThatIsNotUTF8(t *testing.T) {
	for _, c := range []struct{ raw, path string }{
		{`{"title":"ok","blocks":[{"type":"text","data":{"content":"caf` + "\xe9" + `"}}]}`, "blocks[0].data.content"},
		{`{"a":["x","` + "\xff" + `"]}`, "a[1]"},
		{`{"a":{"` + "k\xc3" + `":1}}`, "a.k\ufffd"},
		{`"` + "\xed\xa0\x80" + `"`, ""}, // an encoded surrogate is not UTF-8
	} {
		p := Scan([]byte(c.raw), MaxDepth)
		if p == nil || p.Constraint != ConstraintUTF8 || p.Path != c.path {
			t.Errorf("%q: %+v, want utf8 at %q", c.raw, p, c.path)
		}
	}
	for _, ok := range []string{`{"t":"Grüße, 東京 🌍","e":"\u00e9\"\\"}`, `["\ud83c\udf0d"]`} {
		if p := Scan([]byte(ok), MaxDepth); p != nil {
			t.Errorf("%q refused: %+v", ok, p)
		}
	}
	if Check([]byte(`"`+"\xff"+`"`), MaxDepth) != nil {
		t.Error("Check (depth only) refused invalid UTF-8")
	}
}

func BenchmarkScan1MiB(b *testing.B) {
	raw := []byte(`{"blocks":[` + strings.Repeat(`{"type":"text","data":{"content":"héllo \"wörld\" [x] 東京"}},`, 20000) + `{}]}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if Scan(raw, MaxDepth) != nil {
			b.Fatal("refused")
		}
	}
}
