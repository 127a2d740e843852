package bench

import (
	"context"
	"testing"
	"time"
)

// Every scenario runs briefly against an in-process server, so the harness cannot rot.
func TestScenariosRunAndCheck(t *testing.T) {
	tg, err := StartLocal()
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			rep, err := Run(ctx, tg, []string{name}, Options{Concurrency: 8, Count: 40, Racers: 4, Subscribers: 20, Rate: 20})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if !rep.Passed() || r.Operations == 0 || len(r.Checks) == 0 {
				t.Fatalf("%s: %+v", name, r)
			}
			if len(r.Errors) != 0 {
				t.Fatalf("%s: errors %v", name, r.Errors)
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := Percentiles(ds)
	if l.P50 != 50 || l.P99 != 99 || l.Max != 100 {
		t.Fatalf("percentiles %+v", l)
	}
}
