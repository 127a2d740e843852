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
