package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"folio/bench"
)

// runBench is `folio bench`: run load scenarios against --target, the nodes of
// --targets or an in-process server, print a table, optionally write a JSON
// report; exit 1 when a check fails.
func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	target := fs.String("target", "", "URL of a running server (default: start one in-process on a temporary directory)")
	targets := fs.String("targets", "", "comma-separated URLs of the nodes of one cluster sharing one store: client i of every scenario talks to node i mod N, set-up goes through the first (not with --target)")
	spawn := fs.Bool("spawn", false, "start the server as a separate process (this binary) so its CPU and memory are measured apart")
	fresh := fs.Bool("fresh", false, "give every run (each repetition of each scenario) a new server on an empty data directory, so no figure depends on the runs before it (not with --target)")
	scen := fs.String("scenario", "publish,act", "comma-separated scenarios: "+strings.Join(bench.Names(), ", ")+", or all")
	var o bench.Options
	fs.IntVar(&o.Concurrency, "concurrency", 64, "parallel clients")
	fs.DurationVar(&o.Duration, "duration", 0, "how long timed scenarios run (default 10s when --count is 0)")
	fs.IntVar(&o.Count, "count", 0, "operations (publish), pages (act, act-distinct, callbacks, mixed, startup) or events (fanout, agent-stream)")
	fs.Float64Var(&o.Rate, "rate", 5, "events per second (fanout, agent-stream)")
	fs.IntVar(&o.Subscribers, "subscribers", 1000, "viewers (fanout)")
	fs.IntVar(&o.PayloadBytes, "payload", 0, "extra bytes of text per published page")
	fs.IntVar(&o.Tenants, "tenants", 1, "publishing tenants (publish): publish i is tenant i mod N's; 1 is a single hot tenant")
	fs.StringVar(&o.Transport, "transport", "sse", "sse or ws (fanout, agent-stream, mixed)")
	fs.IntVar(&o.Racers, "racers", 8, "parallel executions per page (act)")
	fs.BoolVar(&o.Affinity, "affinity", false, "send to one of --targets what the documented balancer sends to one node: act, all of a page's executions (page p to target p mod N); publish, all of a tenant's publishes (tenant t to target t mod N). Without it a page's racers meet on different nodes, and publish i goes to target i mod N")
	fs.IntVar(&o.Repeat, "repeat", 1, "runs of each scenario; figures reported are the medians of the runs (each run listed in the JSON)")
	fs.StringVar(&o.PostgresURL, "pg-url", os.Getenv("FOLIO_BENCH_PG"), "raw-pg: the PostgreSQL database its tables are made in, dropped first if there (env FOLIO_BENCH_PG; default: start PostgreSQL on a temporary directory with persistence/pglocal)")
	jsonOut := fs.String("json", "", "write the machine-readable report to this file")
	commit := fs.String("commit", "", "commit id to record in the report")
	cpuProfile := fs.String("cpuprofile", "", "write the harness's own CPU profile to this file (the clients' cost, not the server's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	urls, err := targetURLs(*target, *targets)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
			return err
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	names := strings.Split(*scen, ",")
	if *scen == "all" {
		names = bench.Names()
	}
	o.Progress = progressPrinter()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := runSuite(ctx, urls, *spawn, *fresh, names, o)
	if rep != nil {
		rep.Commit = *commit
		fmt.Fprintln(os.Stderr)
		rep.WriteTable(os.Stdout)
		if *jsonOut != "" {
			if werr := rep.WriteJSON(*jsonOut); werr != nil {
				return werr
			}
		}
	}
	if err != nil {
		return err
	}
	if !rep.Passed() {
		return errors.New("a correctness check failed")
	}
	return nil
}

// targetURLs is the base URLs the load goes to: --target's one or --targets'
// several (none: the harness starts its servers).
func targetURLs(target, targets string) ([]string, error) {
	switch {
	case target != "" && targets != "":
		return nil, errors.New("--target and --targets: give one server with --target or a cluster's nodes with --targets, not both")
	case target != "":
		return []string{target}, nil
	case targets == "":
		return nil, nil
	}
	var urls []string
	for _, u := range strings.Split(targets, ",") {
		if u = strings.TrimSpace(u); u == "" {
			return nil, fmt.Errorf("--targets %q: an empty URL in the list", targets)
		}
		urls = append(urls, u)
	}
	return urls, nil
}

// runSuite runs the scenarios against the nodes at urls, or servers it starts:
// one for the whole suite, or with fresh a new one for every run.
func runSuite(ctx context.Context, urls []string, spawn, fresh bool, names []string, o bench.Options) (*bench.Report, error) {
	start := func() (*bench.Target, error) { return bench.StartLocal() }
	desc := "a new in-process server for every run"
	if spawn {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		start = func() (*bench.Target, error) { return bench.StartProcess(exe) }
		desc = "a new server process for every run"
	}
	switch {
	case len(urls) > 0 && fresh:
		return nil, errors.New("--fresh starts its own servers: use it with --spawn or without --target and --targets")
	case len(urls) > 0:
		t := bench.Remote(urls[0], urls[1:]...)
		defer t.Close()
		return bench.Run(ctx, t, names, o)
	case fresh:
		return bench.RunFresh(ctx, desc, start, names, o)
	}
	t, err := start()
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return bench.Run(ctx, t, names, o)
}

// progressPrinter rewrites one line on a terminal and prints plain lines otherwise.
func progressPrinter() func(string) {
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return func(line string) {
		if tty {
			fmt.Fprintf(os.Stderr, "\r\033[K%s", line)
			return
		}
		fmt.Fprintln(os.Stderr, line)
	}
}
