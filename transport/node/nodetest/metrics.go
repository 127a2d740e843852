package nodetest

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Metric reads one unlabelled sample from the /metrics of the server at base
// (e.g. "http://127.0.0.1:8080"); the test fails when the server has no such sample.
func Metric(t testing.TB, base, name string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %q", name, v)
			}
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
