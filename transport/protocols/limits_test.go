package protocols

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Adversarial inputs built to blow up work or output must stay bounded.
func TestAdversarialInputsStayBounded(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	bigStr := strings.Repeat("x", 200_000)

	var copies []string
	for i := 0; i < 40; i++ { // each copy doubles the state
		copies = append(copies, fmt.Sprintf(`{"op":"copy","from":"/a","path":"/a/%d"}`, i))
	}
	copyBomb := `{"events":[{"type":"STATE_SNAPSHOT","snapshot":{"a":{"x":[1,2,3]}}},{"type":"STATE_DELTA","delta":[` + strings.Join(copies, ",") + `]}]}`

	manyOps := `{"events":[{"type":"STATE_DELTA","delta":[` + strings.Repeat(`{"op":"add","path":"/k","value":1},`, maxPatchOps) + `{"op":"test","path":"/k","value":1}]}]}`

	interp := `[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"` +
		strings.Repeat("${/big}", 20000) + `"}]}},{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/big","value":"` + bigStr + `"}}]`

	items := strings.TrimSuffix(strings.Repeat(`{"n":1},`, 1000), ",")
	nestedTemplates := `[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"List","children":{"componentId":"outer","path":"/items"}},
	  {"id":"outer","component":"List","children":{"componentId":"inner","path":"/items"}},
	  {"id":"inner","component":"Text","text":{"path":"n"}}]}},
	  {"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items","value":[` + items + `]}}]`

	bigProps := `[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"List","children":{"componentId":"g","path":"/items"}},
	  {"id":"g","component":"Blob","payload":"` + bigStr + `"}]}},
	  {"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items","value":[` + items + `]}}]`

	cases := []struct {
		name, body string
		agui       bool
		warning    string
	}{
		{"deep state snapshot", `{"events":[{"type":"STATE_SNAPSHOT","snapshot":` + deep + `}]}`, true, ""},
		{"deep tool args", `{"events":[{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"` + deep + `"}]}`, true, ""},
		{"copy bomb", copyBomb, true, "copy budget exhausted"},
		{"many patch ops", manyOps, true, "JSON Patch operations"},
		{"long pointer", `{"events":[{"type":"STATE_DELTA","delta":[{"op":"add","path":"` + strings.Repeat("/a", 100000) + `","value":1}]}]}`, true, "too long"},
		{"interpolation bomb", interp, false, "output budget"},
		{"nested templates", nestedTemplates, false, "rendered components exhausted"},
		{"deep generic props", `[{"id":"root","component":"Blob","p":` + deep + `}]`, false, "unknown component"},
		{"deep data model", `[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"path":"/d"}}]}},{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/d","value":` + deep + `}}]`, false, ""},
		{"big generic props", bigProps, false, "output budget"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			var p Page
			var err error
			if c.agui {
				p, err = FromAGUI([]byte(c.body))
			} else {
				p, err = FromA2UI([]byte(c.body))
			}
			// Generous: this catches blowups (exponential work), not slowness
			// on a loaded machine or under -race.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
			if err != nil {
				t.Fatalf("err: %v", err)
			}
			checkPage(t, p)
			size := 0
			for _, b := range p.Blocks {
				size += len(b.Data)
			}
			if size > 4*maxOutputBytes {
				t.Errorf("output of %d bytes", size)
			}
			if c.warning != "" {
				wantWarning(t, p.Warnings, c.warning)
			}
		})
	}
}
