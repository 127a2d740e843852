package main

import (
	"os"
	"runtime/debug"
)

// setCollector applies the collector flags through the runtime's own mechanisms:
// --gc-percent is GOGC (how far the heap grows over its live part between
// collections) and --memory-limit-mib is GOMEMLIMIT (a soft ceiling: near it the
// collector runs more often, however the percentage is set). The environment
// variables, when set, win over the flags, as they do for any Go program.
//
// The defaults are Go's (100, no limit): a server that people run on a small VM,
// next to their agents, stays small under load too. Measured on the whole bench
// suite in one session (bench/README.md, "WebSocket viewers and the collector's
// defaults"): every setting starts at the same ~35 MiB; larger heaps (GOGC 400,
// or the hand-written 384 MiB floor this replaced) took 18-36% more writes per
// second on two saturated cores for 1.7-5x the memory, and a limit alone
// (GOGC=off) held the heap at the limit and fan-out's p99 at 257 ms.
func setCollector(percent, limitMiB int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" && limitMiB > 0 {
		debug.SetMemoryLimit(int64(limitMiB) << 20)
	}
}
