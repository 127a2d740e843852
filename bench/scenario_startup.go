package bench

import (
	"context"
	"fmt"
	"time"
)

// startupScenario stores o.Count pages (default 100,000), restarts the server
// process and measures the time until it is healthy and its resident memory right
// after. Actors are spawned lazily, so neither should grow with the stored pages.
// It needs a server process the harness started (--spawn).
func startupScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	if t.proc == nil {
		return nil, fmt.Errorf("the startup scenario restarts the server: run it with --spawn")
	}
	pages := o.Count
	if pages <= 0 {
		pages = 100000
	}
	fill := o
	fill.Count, fill.Duration = pages, 0
	filled, err := publishScenario(ctx, t, fill)
	if err != nil {
		return nil, err
	}
	t.stopProcess()
	took, err := t.startProcess()
	if err != nil {
		return nil, err
	}
	time.Sleep(200 * time.Millisecond) // let background loops settle before reading RSS
	rss := t.processRSS()
	res := &Result{Scenario: "startup", Operations: filled.Operations, Seconds: filled.Seconds, Unit: "pages stored/s",
		Latency: Latency{P50: float64(took.Microseconds()) / 1000, P90: float64(took.Microseconds()) / 1000,
			P99: float64(took.Microseconds()) / 1000, Max: float64(took.Microseconds()) / 1000},
		Errors: filled.Errors, Params: map[string]any{"pages": pages},
		Extra: map[string]float64{"startup_ms": float64(took.Microseconds()) / 1000, "rss_after_start_mib": rss}}
	res.check(startupTarget, took < time.Second, "%d stored pages: healthy after %v", filled.Operations, took.Round(time.Millisecond))
	res.check("memory after start under 100 MiB", rss > 0 && rss < 100, "RSS %.1f MiB after start", rss)
	return res, nil
}

// startupTarget names the start-up time check: a performance target, not a
// correctness check.
const startupTarget = "start-up under 1 s"
