package pglocal

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// LoopbackPorts is the first of n consecutive loopback TCP ports nothing listens
// on at the time of the call, for a process about to bind them itself (PostgreSQL
// here; folio serve, NATS routes and nginx in tests, through nodetest/ports).
//
// Invariant: every port it hands out lies below the kernel's ephemeral range
// (ip_local_port_range, 32768 and up by default). A port from that range, once the
// picker lets it go, may become the local port of any outgoing connection before
// the process meant to listen on it binds it; CI failed so twice (nginx "Address
// already in use", a node's NATS route port taken).
func LoopbackPorts(n int) (int, error) {
	low := ephemeralLow(n)
	for range 200 {
		base := 10000 + rand.IntN(low-10000-n)
		var held []net.Listener
		for i := 0; i < n; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				break
			}
			held = append(held, l)
		}
		for _, l := range held {
			_ = l.Close()
		}
		if len(held) == n {
			return base, nil
		}
	}
	return 0, fmt.Errorf("pglocal: no %d consecutive free loopback ports below %d", n, low)
}

// ephemeralLow is the lowest port of the kernel's ephemeral range (32768 when it
// cannot be read or leaves no room for n ports above 10000).
func ephemeralLow(n int) int {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > 10000+n {
				low = v
			}
		}
	}
	return low
}
