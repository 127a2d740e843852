package pglocal

import (
	"fmt"
	"net"
	"testing"
)

// TestLoopbackPortsLieBelowTheEphemeralRange: every port handed out is below the
// range the kernel picks outgoing connections' local ports from, and each of the
// n is free to bind when handed out.
func TestLoopbackPortsLieBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow(3)
	for range 50 {
		base, err := LoopbackPorts(3)
		if err != nil {
			t.Fatal(err)
		}
		if base < 10000 || base+2 >= low {
			t.Fatalf("ports %d to %d are not between 10000 and the ephemeral range's start %d", base, base+2, low)
		}
		for p := base; p < base+3; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				t.Fatalf("port %d of %d..%d could not be bound: %v", p, base, base+2, err)
			}
			_ = l.Close()
		}
	}
}
