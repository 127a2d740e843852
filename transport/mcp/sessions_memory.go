package foliomcp

import (
	"runtime/debug"
	"sync"
)

// Sessions that ended hand their memory back to the OS at once, rather than when
// the runtime gets to it: left to itself it collects an idle process every two
// minutes and returns freed pages at a few MB a second, so a node that a flood of
// sessions grew by hundreds of MB would stay that large for minutes after the
// flood idled out. Each session holds about 12 KiB (its goroutines, buffers, the
// SDK's state).
const (
	// handBackEvery ended sessions hand memory back (about 12 MB).
	handBackEvery = 1000
	// handBackWhenNone ended sessions hand it back once no session is open.
	handBackWhenNone = 100
)

var handingBack struct {
	mu             sync.Mutex
	running, again bool
}

// handBack collects garbage and returns free memory to the OS, off the caller's
// goroutine. One runs at a time; a call while one runs makes it run once more, so
// what ended meanwhile is returned too.
func handBack() {
	hb := &handingBack
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.running {
		hb.again = true
		return
	}
	hb.running = true
	go func() {
		for {
			debug.FreeOSMemory()
			hb.mu.Lock()
			again := hb.again
			hb.again, hb.running = false, again
			hb.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}
