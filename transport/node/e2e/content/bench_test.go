package content_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// Latency of the Content routes against a whole node (fsync on every commit), one
// client at a time; the p50-ms metric is the median. The OpenAPI checker wraps every
// response, as in all end-to-end tests, so absolute numbers include it.
//
//	go test -run XXX -bench . -benchtime 200x ./transport/node/e2e/content/
func BenchmarkContentRoutes(b *testing.B) {
	e := nodetest.New(b)
	key, _ := e.Register("bench")
	pages5 := make([]any, 5)
	for i := range pages5 {
		pages5[i] = approvalBody(fmt.Sprintf("Step %d", i))
	}
	for _, c := range []struct {
		name   string
		path   string
		body   any
		status int
	}{
		{"publish", "/v1/publish", approvalBody("plain"), 201},
		{"template", "/v1/publish/template/deploy_review", map[string]any{"variables": map[string]any{
			"service": "api", "version": "1.2.3", "environment": "production", "changes": []string{"a", "b"}}}, 201},
		{"ag-ui", "/v1/publish/ag-ui", `{"title": "run", "events": [
			{"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "t"},
			{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{\"a\": 1}"},
			{"type": "TOOL_CALL_END", "toolCallId": "c"},
			{"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [{"message": "ok?"}]}}]}`, 201},
		{"workflow-5-pages", "/v1/workflows", map[string]any{"name": "w", "flow": "sequential", "pages": pages5}, 201},
	} {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				e.Must(c.status, "POST", c.path, key, c.body)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
