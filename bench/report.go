package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Check is one correctness check of a scenario.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Result is one scenario's outcome.
type Result struct {
	Scenario   string             `json:"scenario"`
	Params     map[string]any     `json:"params"`
	Operations int                `json:"operations"`
	Seconds    float64            `json:"seconds"`
	Throughput float64            `json:"throughput_per_s"`
	Unit       string             `json:"unit"`
	Latency    Latency            `json:"latency"`
	Errors     map[string]int     `json:"errors"`
	Extra      map[string]float64 `json:"extra,omitempty"`
	Server     ServerUsage        `json:"server"`
	Checks     []Check            `json:"checks"`
	// Runs lists each repetition when the scenario ran more than once (--repeat);
	// the figures above are then their medians.
	Runs []RunFigures `json:"runs,omitempty"`
}

// Passed tells whether every check passed.
func (r *Result) Passed() bool {
	for _, c := range r.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

func (r *Result) check(name string, ok bool, format string, args ...any) {
	r.Checks = append(r.Checks, Check{Name: name, Passed: ok, Detail: fmt.Sprintf(format, args...)})
}

// Report is a whole run.
type Report struct {
	StartedAt time.Time `json:"started_at"`
	Target    string    `json:"target"` // what ran the server, in words
	// Targets are the base URLs of the nodes the load went to, the first (which
	// took the set-up) first; none when every run had a server of its own.
	Targets []string  `json:"targets,omitempty"`
	Machine Machine   `json:"machine"`
	Commit  string    `json:"commit,omitempty"`
	Results []*Result `json:"results"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model"`
	MemoryGiB int    `json:"memory_gib"`
	GoVersion string `json:"go_version"`
}

// Passed tells whether every scenario's checks passed.
func (rep *Report) Passed() bool {
	for _, r := range rep.Results {
		if !r.Passed() {
			return false
		}
	}
	return true
}

// WriteTable prints the human summary.
func (rep *Report) WriteTable(w io.Writer) {
	if len(rep.Targets) > 0 {
		fmt.Fprintf(w, "targets (%d): %s\n", len(rep.Targets), strings.Join(rep.Targets, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tops\tthroughput\tp50 ms\tp90 ms\tp99 ms\tmax ms\terrors\tserver CPU s\tserver RSS MiB\tchecks\t")
	for _, r := range rep.Results {
		status := "PASS"
		if !r.Passed() {
			status = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f %s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%.1f\t%s\t\n", r.Scenario, r.Operations, r.Throughput, r.Unit,
			r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.Max, errString(r.Errors), r.Server.CPUSeconds, r.Server.RSSMiB, status)
	}
	_ = tw.Flush()
	for _, r := range rep.Results {
		if len(r.Runs) > 1 {
			p99 := make([]string, len(r.Runs))
			for i, run := range r.Runs {
				p99[i] = fmt.Sprintf("%.2f", run.Latency.P99)
			}
			fmt.Fprintf(w, "  %s median of %d runs; p99 ms of each: %s\n", r.Scenario, len(r.Runs), strings.Join(p99, ", "))
		}
		for _, k := range sortedKeys(r.Extra) {
			fmt.Fprintf(w, "  %s %s = %.3f%s\n", r.Scenario, k, r.Extra[k], eachRun(r.Runs, k))
		}
		for _, c := range r.Checks {
			mark := "ok  "
			if !c.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s %s %s: %s\n", mark, r.Scenario, c.Name, c.Detail)
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func errString(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range sortedKeysInt(m) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}

func sortedKeysInt(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WriteJSON writes the machine-readable report to path.
func (rep *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// eachRun lists a repeated scenario's extra figure k run by run, " (a, b, c)",
// with "-" for a run that could not measure it; "" for a single run.
func eachRun(runs []RunFigures, k string) string {
	if len(runs) < 2 {
		return ""
	}
	each := make([]string, len(runs))
	for i, run := range runs {
		each[i] = "-"
		if v, ok := run.Extra[k]; ok {
			each[i] = fmt.Sprintf("%.3f", v)
		}
	}
	return " (" + strings.Join(each, ", ") + ")"
}
