package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Scenario runs one kind of load against t and reports what it measured and checked.
type Scenario func(ctx context.Context, t *Target, o Options) (*Result, error)

// Scenarios by name.
var Scenarios = map[string]Scenario{
	"publish":      publishScenario,
	"act":          actScenario,
	"act-distinct": actDistinctScenario,
	"startup":      startupScenario,
	"callbacks":    callbacksScenario,
	"fanout":       fanoutScenario,
	"agent-stream": agentStreamScenario,
	"mixed":        mixedScenario,
	"wait":         waitScenario,
}

// Names lists the scenarios in a stable order.
func Names() []string {
	out := make([]string, 0, len(Scenarios))
	for k := range Scenarios {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Run runs the named scenarios one after the other, every run against t (all of
// its nodes): each scenario meets the state the ones before it left. The report
// lists t's nodes.
func Run(ctx context.Context, t *Target, names []string, o Options) (*Report, error) {
	desc := strings.Join(t.URLs(), ", ")
	if t.Local() {
		desc = "in-process server at " + t.URL
	}
	return run(ctx, desc, t.URLs(), func() (*Target, func(), error) { return t, func() {}, nil }, names, o)
}

// RunFresh runs the named scenarios one after the other, every run (each
// repetition of each scenario) against a new server from start, which is closed
// and its data removed before the next run starts. No figure then depends on the
// scenarios run before it: the server's heap, live actors and stored pages are
// that run's alone (with one shared server, the idle-viewer memory of fanout
// measured room the earlier scenarios had left in the heap, not the viewers).
func RunFresh(ctx context.Context, desc string, start func() (*Target, error), names []string, o Options) (*Report, error) {
	return run(ctx, desc, nil, func() (*Target, func(), error) {
		t, err := start()
		if err != nil {
			return nil, nil, err
		}
		return t, t.Close, nil
	}, names, o)
}

// run runs each scenario o.Repeat times, each run against the server next gives
// it, released when the run ends; targets are the base URLs every run uses (nil
// when each run has a server of its own).
func run(ctx context.Context, desc string, targets []string, next func() (*Target, func(), error), names []string, o Options) (*Report, error) {
	o.defaults()
	rep := &Report{StartedAt: time.Now().UTC(), Target: desc, Targets: targets, Machine: machine()}
	for _, name := range names {
		sc, ok := Scenarios[name]
		if !ok {
			return rep, fmt.Errorf("unknown scenario %q (have %s)", name, strings.Join(Names(), ", "))
		}
		runs := make([]*Result, 0, o.Repeat)
		for i := 0; i < o.Repeat; i++ {
			t, release, err := next()
			if err != nil {
				return rep, fmt.Errorf("%s: starting its server: %w", name, err)
			}
			res, err := runOnce(ctx, t, sc, o)
			release()
			if err != nil {
				return rep, fmt.Errorf("%s: %w", name, err)
			}
			runs = append(runs, res)
		}
		rep.Results = append(rep.Results, median(runs))
	}
	return rep, nil
}

// runOnce runs one scenario, measures the server's CPU and memory around it, and
// the host's speed just before it (hostspeed.go).
func runOnce(ctx context.Context, t *Target, sc Scenario, o Options) (*Result, error) {
	host := probeHost(t) // before the load, while the server is idle
	cpu0, _, _ := t.usageSample(ctx)
	res, err := sc(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if len(host) > 0 {
		if res.Extra == nil {
			res.Extra = map[string]float64{}
		}
		maps.Copy(res.Extra, host)
	}
	cpu1, rss, src := t.usageSample(ctx)
	cpu := cpu1 - cpu0
	if cpu1 < cpu0 { // the scenario restarted the server: count its new process only
		cpu = cpu1
	}
	res.Server = ServerUsage{CPUSeconds: cpu, RSSMiB: rss, Source: src}
	if res.Seconds > 0 {
		res.Throughput = float64(res.Operations) / res.Seconds
	}
	return res, nil
}

// drive runs op on o.Concurrency workers until o.Count operations were started or
// o.Duration passed, reporting progress. op returns an error code ("" for success)
// and its latency is recorded.
func drive(ctx context.Context, name string, o Options, rec *Recorder, op func(ctx context.Context, i int) string) time.Duration {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Count <= 0 {
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	stopProgress := progress(name, o, rec)
	start := time.Now()
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if o.Count > 0 && i >= o.Count {
					return
				}
				t0 := time.Now()
				if code := op(ctx, i); code != "" {
					if ctx.Err() == nil {
						rec.Fail(code)
					}
					continue
				}
				rec.OK(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopProgress()
	return elapsed
}

// progress prints a live line on a terminal (plain lines otherwise) until stopped.
func progress(name string, o Options, rec *Recorder) func() {
	if o.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		start, last := time.Now(), 0
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := rec.Count()
				_, _, errs := rec.Summary()
				e := 0
				for _, v := range errs {
					e += v
				}
				o.Progress(fmt.Sprintf("[%s] %6.0fs  %d ok  %d/s  %d errors", name, time.Since(start).Seconds(), n, n-last, e))
				last = n
			}
		}
	}()
	return func() { close(done) }
}

func statusCode(st int, err error) string {
	if err != nil {
		return "transport"
	}
	return fmt.Sprintf("http_%d", st)
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				if i := strings.IndexByte(line, ':'); i > 0 {
					m.CPUModel = strings.TrimSpace(line[i+1:])
				}
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemoryGiB = (kb + 512*1024) / (1024 * 1024)
		}
	}
	return m
}
