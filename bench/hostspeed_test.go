package bench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// The reference figure must drop when the machine is busy: that is what it is for.
func TestHostReferenceSeesABusyMachine(t *testing.T) {
	idle := max(referenceKops(hostProbeFor), referenceKops(hostProbeFor))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; !stop.Load(); x++ {
				_ = x * x
			}
		}()
	}
	busy := referenceKops(hostProbeFor)
	stop.Store(true)
	wg.Wait()
	if idle <= 0 || busy >= 0.75*idle {
		t.Fatalf("reference work: %.1f kops/s idle, %.1f with every core busy; want the busy figure well under the idle one", idle, busy)
	}
}

// Every run against a server the harness started carries the host figures; a run
// against a server elsewhere carries none (its host is not this one).
func TestRunsCarryTheHostFigures(t *testing.T) {
	local, err := StartLocal()
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	rep, err := Run(context.Background(), local, []string{"publish"}, Options{Concurrency: 4, Count: 10, Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	for i, run := range r.Runs {
		if run.Extra["host_reference_kops_per_s"] <= 0 || run.Extra["host_fsync_ms"] <= 0 {
			t.Fatalf("run %d: host figures missing: %v", i+1, run.Extra)
		}
	}
	remote, err := Run(context.Background(), Remote(local.URL), []string{"publish"}, Options{Concurrency: 4, Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := remote.Results[0].Extra["host_reference_kops_per_s"]; ok {
		t.Fatalf("a --target run reported this machine's speed as its server's: %v", remote.Results[0].Extra)
	}
}
