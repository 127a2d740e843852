package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `folio bench --fresh` runs every repetition against a server of its own and says
// so in the report; with --target there is no server to start, and it refuses.
func TestBenchFreshGivesEveryRunItsOwnServer(t *testing.T) {
	if err := runBench([]string{"--fresh", "--target", "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("--fresh with --target: %v, want a refusal naming --fresh", err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	if err := runBench([]string{"--fresh", "--scenario", "act-distinct", "--count", "5", "--concurrency", "2", "--repeat", "2", "--json", out}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Target  string `json:"target"`
		Results []struct {
			Runs []json.RawMessage `json:"runs"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Target != "a new in-process server for every run" || len(rep.Results) != 1 || len(rep.Results[0].Runs) != 2 {
		t.Fatalf("report: target %q, %d results, runs %v", rep.Target, len(rep.Results), rep.Results)
	}
}
