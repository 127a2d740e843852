package bench

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The machines the harness runs on are shared: the same commit gives figures a
// fifth or more apart within an hour. So before every run against a server it
// started on this machine, the harness measures the machine itself while nothing
// of its own runs: how much of a fixed single-threaded piece of work (a page-like
// document encoded, decoded and hashed, the kind of work a request costs) one core
// gets done, and how long a 4 KiB write and fsync take in the server's data
// directory. Both go into the run's figures (host_reference_kops_per_s,
// host_fsync_ms), so a reader sees how fast the host was when each run started. It
// is a snapshot: contention that comes and goes within a run is not in it.

// hostProbeFor is how long the reference work is timed.
const hostProbeFor = 200 * time.Millisecond

// hostFsyncs is how many synced writes the fsync figure is the median of.
const hostFsyncs = 15

// referenceDoc is the fixed input of one unit of reference work.
var referenceDoc = func() map[string]any {
	var doc map[string]any
	_ = json.Unmarshal(pageBody(7, 256), &doc)
	return doc
}()

// referenceUnit is one unit of reference work: encode, decode, hash.
func referenceUnit() byte {
	b, _ := json.Marshal(referenceDoc)
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	sum := sha256.Sum256(b)
	return sum[0] + byte(len(back))
}

// referenceKops is thousands of reference units per second on one goroutine.
func referenceKops(d time.Duration) float64 {
	var sink byte
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		for range 16 {
			sink += referenceUnit()
		}
		n += 16
	}
	_ = sink
	return float64(n) / time.Since(start).Seconds() / 1000
}

// fsyncMs is the median time of a 4 KiB write followed by fsync in dir.
func fsyncMs(dir string) (float64, error) {
	f, err := os.CreateTemp(dir, "host-probe-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	defer func() { _ = f.Close() }()
	page := make([]byte, 4096)
	took := make([]float64, 0, hostFsyncs)
	for i := range hostFsyncs {
		t0 := time.Now()
		if _, err := f.WriteAt(page, int64(i)*4096); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
		took = append(took, float64(time.Since(t0).Nanoseconds())/1e6)
	}
	sort.Float64s(took)
	return took[len(took)/2], nil
}

// probeHost measures the host when t runs on this machine (a server the harness
// started); nil for a server elsewhere, whose host the harness cannot see.
func probeHost(t *Target) map[string]float64 {
	dir := t.dataDir()
	if dir == "" {
		return nil
	}
	host := map[string]float64{"host_reference_kops_per_s": referenceKops(hostProbeFor)}
	if ms, err := fsyncMs(filepath.Clean(dir)); err == nil {
		host["host_fsync_ms"] = ms
	}
	return host
}
