package foliomcp

import "testing"

// TestACallersAddressSurvivesTheInProcessHop: the RemoteAddr an in-process request
// carries for a caller maps back onto the caller's key: an IPv4 address as it is,
// an IPv6 client's /64 as its first address (which the API masks to the same /64).
func TestACallersAddressSurvivesTheInProcessHop(t *testing.T) {
	for caller, want := range map[string]string{
		"203.0.113.5":       "203.0.113.5:0",
		"2001:db8:1:2::/64": "[2001:db8:1:2::]:0",
		"::1":               "[::1]:0",
	} {
		if got := remoteAddrOf(caller); got != want {
			t.Errorf("remoteAddrOf(%q) = %q, want %q", caller, got, want)
		}
	}
}
