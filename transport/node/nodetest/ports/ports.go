// Package ports picks loopback ports for processes a test starts and that bind
// their own listeners (folio serve, NATS routes, nginx): pglocal.LoopbackPorts,
// which keeps them below the kernel's ephemeral range, failing the test when none
// is found.
package ports

import (
	"fmt"
	"testing"

	"folio/persistence/pglocal"
)

// Free is a loopback host:port nobody listens on, below the ephemeral range.
func Free(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", Consecutive(t, 1))
}

// Consecutive is the first of n consecutive free loopback ports, below the
// ephemeral range.
func Consecutive(t testing.TB, n int) int {
	t.Helper()
	port, err := pglocal.LoopbackPorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return port
}
