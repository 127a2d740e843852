package bench

import (
	"fmt"
	"sort"
)

// Run figures of one repetition, kept beside the median so the spread is visible.
type RunFigures struct {
	Operations int     `json:"operations"`
	Throughput float64 `json:"throughput_per_s"`
	Latency    Latency `json:"latency"`
	CPUSeconds float64 `json:"server_cpu_s"`
	// Extra is the run's scenario-specific figures (µs per delivery, KiB per viewer, …).
	Extra map[string]float64 `json:"extra,omitempty"`
}

// median combines repetitions of one scenario into the reported result. Every
// figure is the median of that figure over the runs (taken separately, so the
// median p99 and the median throughput may come from different runs), which is
// how noise on a shared machine is reported; errors are summed; a check passes
// only if it passed in every run. The runs themselves are listed in Runs.
func median(runs []*Result) *Result {
	if len(runs) == 1 {
		return runs[0]
	}
	last := runs[len(runs)-1]
	out := &Result{Scenario: last.Scenario, Params: last.Params, Unit: last.Unit, Errors: map[string]int{}}
	pick := func(f func(r *Result) float64) float64 { return medianOf(runs, f) }
	out.Operations = int(pick(func(r *Result) float64 { return float64(r.Operations) }))
	out.Seconds = pick(func(r *Result) float64 { return r.Seconds })
	out.Throughput = pick(func(r *Result) float64 { return r.Throughput })
	out.Latency = Latency{
		P50: pick(func(r *Result) float64 { return r.Latency.P50 }),
		P90: pick(func(r *Result) float64 { return r.Latency.P90 }),
		P99: pick(func(r *Result) float64 { return r.Latency.P99 }),
		Max: pick(func(r *Result) float64 { return r.Latency.Max }),
	}
	out.Server = ServerUsage{
		CPUSeconds: pick(func(r *Result) float64 { return r.Server.CPUSeconds }),
		RSSMiB:     pick(func(r *Result) float64 { return r.Server.RSSMiB }),
		Source:     last.Server.Source,
	}
	// An extra figure some runs could not measure is the median of those that did.
	for _, r := range runs {
		for k := range r.Extra {
			if _, done := out.Extra[k]; done {
				continue
			}
			var have []*Result
			for _, r := range runs {
				if _, ok := r.Extra[k]; ok {
					have = append(have, r)
				}
			}
			if out.Extra == nil {
				out.Extra = map[string]float64{}
			}
			out.Extra[k] = medianOf(have, func(r *Result) float64 { return r.Extra[k] })
		}
	}
	for _, r := range runs {
		for code, n := range r.Errors {
			out.Errors[code] += n
		}
		out.Runs = append(out.Runs, RunFigures{Operations: r.Operations, Throughput: r.Throughput, Latency: r.Latency, CPUSeconds: r.Server.CPUSeconds, Extra: r.Extra})
	}
	// Checks by name in the order the last run made them; a failing run's detail wins.
	for _, c := range last.Checks {
		combined := Check{Name: c.Name, Passed: true, Detail: fmt.Sprintf("%s (all %d runs)", c.Detail, len(runs))}
		for i, r := range runs {
			for _, rc := range r.Checks {
				if rc.Name == c.Name && !rc.Passed && combined.Passed {
					combined = Check{Name: c.Name, Passed: false, Detail: fmt.Sprintf("run %d of %d: %s", i+1, len(runs), rc.Detail)}
				}
			}
		}
		out.Checks = append(out.Checks, combined)
	}
	for i, r := range runs {
		if len(r.Checks) != len(last.Checks) {
			out.Checks = append(out.Checks, Check{Name: "same checks every run", Passed: false,
				Detail: fmt.Sprintf("run %d made %d checks, the last %d", i+1, len(r.Checks), len(last.Checks))})
		}
	}
	return out
}

// medianOf is the median of f over runs (the mean of the middle two for an even count).
func medianOf(runs []*Result, f func(r *Result) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
