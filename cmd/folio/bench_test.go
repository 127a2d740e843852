package main

import (
	"encoding/json"
	"folio/bench"
	"os"
	"path/filepath"
	"slices"
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

// `folio bench --targets` loads every node it lists and records them in the report;
// --target is its one-node case, and giving both is refused naming the two flags.
func TestBenchTargetsListsEveryNode(t *testing.T) {
	for _, args := range [][]string{
		{"--target", "http://127.0.0.1:1", "--targets", "http://127.0.0.1:1,http://127.0.0.1:2"},
		{"--targets", "http://127.0.0.1:1,,http://127.0.0.1:2"},
		{"--fresh", "--targets", "http://127.0.0.1:1,http://127.0.0.1:2"},
	} {
		err := runBench(args)
		if err == nil {
			t.Fatalf("%v: accepted", args)
		}
		for _, a := range args {
			if strings.HasPrefix(a, "--") && a != "--targets" && !strings.Contains(err.Error(), a) {
				t.Fatalf("%v: %v, want a refusal naming %s", args, err, a)
			}
		}
		if !strings.Contains(err.Error(), "--targets") {
			t.Fatalf("%v: %v, want a refusal naming --targets", args, err)
		}
	}
	srv, err := bench.StartLocal()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	nodes := []string{"http://127.0.0.1:" + port, "http://localhost:" + port}
	out := filepath.Join(t.TempDir(), "report.json")
	if err := runBench([]string{"--targets", strings.Join(nodes, ","), "--scenario", "act", "--count", "4", "--racers", "2", "--concurrency", "2", "--json", out}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Targets []string `json:"targets"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Targets, nodes) {
		t.Fatalf("report targets %v, want %v", rep.Targets, nodes)
	}
}
