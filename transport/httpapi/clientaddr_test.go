package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestClientAddressReadsForwardedForOnlyFromTrustedProxies: the hops of
// X-Forwarded-For are read from the right, the trusted ones skipped; a malformed
// hop, or a peer outside the trusted networks, leaves the TCP peer.
func TestClientAddressReadsForwardedForOnlyFromTrustedProxies(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, fd00::/8,192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{trusted: trusted}
	for _, tc := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"10.1.2.3:80", []string{"203.0.113.5"}, "203.0.113.5"},
		{"10.1.2.3:80", []string{"198.51.100.1, 203.0.113.5"}, "203.0.113.5"},              // the client's own claim is left of the proxy's
		{"10.1.2.3:80", []string{"203.0.113.5, 10.9.9.9"}, "203.0.113.5"},                  // a trusted hop is skipped
		{"10.1.2.3:80", []string{"198.51.100.1", "203.0.113.5, 192.0.2.1"}, "203.0.113.5"}, // several fields, in order
		{"10.1.2.3:80", []string{"10.4.4.4, 10.5.5.5"}, "10.4.4.4"},                        // all trusted: the leftmost
		{"10.1.2.3:80", []string{"2001:db8:1:2::7"}, "2001:db8:1:2::/64"},                  // IPv6 by its /64
		{"10.1.2.3:80", []string{"[2001:db8:1:2::7]:443"}, "2001:db8:1:2::/64"},            // with a port
		{"10.1.2.3:80", []string{"203.0.113.5:1234"}, "203.0.113.5"},
		{"10.1.2.3:80", []string{"unknown"}, "10.1.2.3"},            // malformed: the peer
		{"10.1.2.3:80", []string{"203.0.113.5, bogus"}, "10.1.2.3"}, // malformed right of the client: the peer
		{"10.1.2.3:80", nil, "10.1.2.3"},                            // no header: the peer
		{"[fd00::1]:80", []string{"203.0.113.5"}, "203.0.113.5"},    // an IPv6 proxy
		{"[::ffff:10.0.0.1]:80", []string{"203.0.113.5"}, "203.0.113.5"},
		{"203.0.113.9:80", []string{"198.51.100.1"}, "203.0.113.9"}, // an untrusted peer's header is ignored
		{"192.0.2.2:80", []string{"198.51.100.1"}, "192.0.2.2"},     // a bare address trusts itself alone
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := s.ClientAddress(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %q, want %q", tc.peer, tc.xff, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "not-a-cidr", "10.0.0.0/8,x"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("ParseTrustedProxies(%q) accepted", bad)
		}
	}
}

func TestClientAddress(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:5555":                 "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443":     "2001:db8:1:2::/64",
		"not-an-address":                 "not-an-address",
		"[::ffff:192.0.2.9]:1":           "192.0.2.9",
		"[2001:db8:1:3:3:4:5:6]:443":     "2001:db8:1:3::/64",
		"[fe80::1%eth0]:80":              "fe80::/64",
		"198.51.100.1:80":                "198.51.100.1",
		"[2001:db8:aaaa:bbbb:1::2]:8080": "2001:db8:aaaa:bbbb::/64",
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		if got := (&Server{}).ClientAddress(r); got != want {
			t.Errorf("%s: %q, want %q", remote, got, want)
		}
	}
}
