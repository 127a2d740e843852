package blocks

import (
	"encoding/json"
	"strings"
	"testing"
)

// chain is a block nested n levels deep: group > group > ... > text.
func chain(n int) Block {
	s := `{"type":"text","data":{"content":"leaf"}}`
	for i := 1; i < n; i++ {
		s = `{"type":"group","data":{"blocks":[` + s + `]}}`
	}
	var b Block
	if err := json.Unmarshal([]byte(s), &b); err != nil {
		panic(err)
	}
	return b
}

func TestDepth(t *testing.T) {
	cases := []struct {
		block string
		want  int
	}{
		{`{"type":"text","data":{"content":"x"}}`, 1},
		{`{"type":"layout","data":{"columns":[{"blocks":[{"type":"text","data":{"content":"x"}}]}]}}`, 2},
		{`{"type":"layout","data":{"columns":[{"blocks":[]},{"blocks":[{"type":"tab","data":{"tabs":[{"blocks":[{"type":"text"}]}]}}]}]}}`, 3},
		{`{"type":"group","data":{"blocks":["junk",7]}}`, 2},
		{`{"type":"group","data":{"blocks":"not a list"}}`, 1},
		{`{"type":"group","data":"not an object"}`, 1},
		{`{"type":"group"}`, 1},
		{`{"type":"mystery","data":{"blocks":[{"type":"text"}]}}`, 1},
		{`{"type":"tree","data":{"nodes":[{"label":"a","children":[{"label":"b"}]}]}}`, 1},
	}
	for _, c := range cases {
		if got := Depth(mustBlock(t, c.block)); got != c.want {
			t.Errorf("Depth(%s) = %d, want %d", c.block, got, c.want)
		}
	}
	for _, n := range []int{1, 6, 7, 63, 64} {
		if got := Depth(chain(n)); got != n {
			t.Errorf("Depth(chain(%d)) = %d", n, got)
		}
	}
	if got := Depth(chain(2000)); got != MaxDepth {
		t.Errorf("Depth(chain(2000)) = %d, want the cap %d", got, MaxDepth)
	}
	if got := Depth(Block{Type: "group", Data: json.RawMessage(`{"blocks":[`)}); got != 1 {
		t.Errorf("Depth of invalid JSON = %d", got)
	}
}

func TestCount(t *testing.T) {
	bs := []Block{
		mustBlock(t, `{"type":"text","data":{"content":"x"}}`),
		mustBlock(t, `{"type":"layout","data":{"columns":[{"blocks":[{"type":"text"},{"type":"divider"}]},
			{"blocks":[{"type":"group","data":{"blocks":[{"type":"text"}]}}]}]}}`),
		mustBlock(t, `{"type":"tab","data":{"tabs":[{"label":"a","blocks":[{"type":"text"}]},{"label":"b"}]}}`),
	}
	if got := Count(bs); got != 1+5+2 {
		t.Errorf("Count = %d, want 8", got)
	}
	if got := Count(nil); got != 0 {
		t.Errorf("Count(nil) = %d", got)
	}
	if got := Count([]Block{chain(10)}); got != 10 {
		t.Errorf("Count(chain(10)) = %d", got)
	}
	if got := Count([]Block{chain(500)}); got != MaxDepth {
		t.Errorf("Count(chain(500)) = %d, want %d (counting stops at MaxDepth)", got, MaxDepth)
	}
}

func TestDeepDataDoesNotPanic(t *testing.T) {
	deep := strings.Repeat(`{"label":"x","children":[`, 3000) + strings.Repeat(`]}`, 3000)
	b := Block{Type: "tree", Data: json.RawMessage(`{"nodes":[` + deep + `]}`)}
	_, warnings := Prepare("blocks", []Block{b})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not checked further") {
		t.Errorf("got %q", warnings)
	}
	_, warnings = Prepare("blocks", []Block{chain(2000)})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not checked further") {
		t.Errorf("got %q", warnings)
	}
}
