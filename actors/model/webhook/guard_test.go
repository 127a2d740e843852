package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestSSRFTable is the table of targets: what publishing says (a 400 for a URL that
// is not http(s), an advisory warning for a literal special address) and what the
// dialler does with the resolved address.
func TestSSRFTable(t *testing.T) {
	cases := []struct {
		url     string
		bad     bool   // 400 at publish
		reason  string // blocked because (warning at publish, refused at dial); "" allowed
		literal bool   // the host is an address literal (checked at publish)
	}{
		{"https://hooks.example.com/x", false, "", false},
		{"http://93.184.215.14/hook", false, "", true},
		{"https://[2606:4700::1111]/", false, "", true},
		{"ftp://example.com/", true, "", false},
		{"file:///etc/passwd", true, "", false},
		{"gopher://127.0.0.1:25/", true, "", false},
		{"http://user:pw@example.com/", true, "", false},
		{"http:///nohost", true, "", false},
		{"http://127.0.0.1:8080/", false, "loopback", true},
		{"http://127.1/", false, "loopback", true},
		{"http://2130706433/", false, "loopback", true},
		{"http://0x7f000001/", false, "loopback", true},
		{"http://0177.0.0.1/", false, "loopback", true},
		{"http://0x7f.0.0.1/", false, "loopback", true},
		{"http://[::1]/", false, "loopback", true},
		{"http://[::ffff:127.0.0.1]/", false, "loopback", true},
		{"http://[::ffff:7f00:1]/", false, "loopback", true},
		{"http://localhost:9000/", false, "loopback", false},
		{"http://api.localhost/", false, "loopback", false},
		{"http://localhost.:9000/", false, "loopback", false},
		{"http://LocalHost./x", false, "loopback", false},
		{"http://0.0.0.0/", false, "unspecified", true},
		{"http://10.1.2.3/", false, "private", true},
		{"http://172.16.0.1/", false, "private", true},
		{"http://192.168.1.1/", false, "private", true},
		{"http://3232235777/", false, "private", true}, // 192.168.1.1 in decimal
		{"http://169.254.169.254/latest/meta-data", false, "link-local", true},
		{"http://[fe80::1]/", false, "link-local", true},
		{"http://100.64.0.1/", false, "cgnat", true},
		{"http://224.0.0.1/", false, "multicast", true},
		{"http://[ff02::1]/", false, "multicast", true},
		{"http://[fd00::1]/", false, "private", true},
		{"http://240.0.0.1/", false, "reserved", true},
		{"http://255.255.255.255/", false, "reserved", true},
		{"http://198.18.0.1/", false, "benchmarking", true},
		{"http://192.0.2.1/", false, "documentation", true},
		{"http://[64:ff9b::7f00:1]/", false, "nat64", true},
		{"http://[2002:7f00:1::]/", false, "6to4", true},
		// IPv4-mapped (::ffff:0:0/96): judged as the IPv4 address carried, in
		// dotted, hex and fully written forms.
		{"http://[::ffff:10.0.0.1]/", false, "private", true},
		{"http://[::ffff:a00:1]/", false, "private", true},
		{"http://[0:0:0:0:0:ffff:a00:1]/", false, "private", true},
		{"http://[::ffff:169.254.169.254]/", false, "link-local", true},
		{"http://[::ffff:a9fe:a9fe]/", false, "link-local", true},
		{"http://[::FFFF:7F00:0001]/", false, "loopback", true},
		{"http://[0000:0000:0000:0000:0000:ffff:127.0.0.1]/", false, "loopback", true},
		{"http://[::ffff:0.0.0.0]/", false, "unspecified", true},
		{"http://[::ffff:93.184.215.14]/", false, "", true},
		// IPv4-compatible (::/96): refused whatever it carries.
		{"http://[::127.0.0.1]/", false, "ipv4-compatible", true},
		{"http://[::7f00:1]/", false, "ipv4-compatible", true},
		{"http://[0:0:0:0:0:0:127.0.0.1]/", false, "ipv4-compatible", true},
		{"http://[::10.0.0.1]/", false, "ipv4-compatible", true},
		{"http://[::a00:1]/", false, "ipv4-compatible", true},
		{"http://[::169.254.169.254]/", false, "ipv4-compatible", true},
		{"http://[::a9fe:a9fe]/", false, "ipv4-compatible", true},
		{"http://[::93.184.215.14]/", false, "ipv4-compatible", true},
		{"http://[::2]/", false, "ipv4-compatible", true},
		// IPv4-translated (::ffff:0:0:0/96).
		{"http://[::ffff:0:7f00:1]/", false, "ipv4-translated", true},
		{"http://[::ffff:0:a9fe:a9fe]/", false, "ipv4-translated", true},
	}
	for _, c := range cases {
		u, warn, err := checkTarget(c.url)
		if (err != nil) != c.bad {
			t.Errorf("%s: Check error %v, want bad=%v", c.url, err, c.bad)
			continue
		}
		if c.bad {
			continue
		}
		if (warn != "") != (c.reason != "") || (c.reason != "" && !strings.Contains(warn, c.reason)) {
			t.Errorf("%s: warning %q, want one naming %q", c.url, warn, c.reason)
		}
		if !c.literal {
			continue
		}
		ip, ok := parseLiteral(u.Hostname())
		if !ok {
			t.Errorf("%s: host %q not read as an address", c.url, u.Hostname())
			continue
		}
		if got := blocked(ip); got != c.reason {
			t.Errorf("%s: Blocked(%s) = %q, want %q", c.url, ip, got, c.reason)
		}
		// The dialler refuses the same addresses before connecting anywhere.
		if c.reason != "" {
			d := &Dialer{}
			_, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort(u.Hostname(), "80"))
			var ref *RefusedError
			if !errors.As(err, &ref) || ref.Reason != c.reason {
				t.Errorf("%s: dial error %v, want refused (%s)", c.url, err, c.reason)
			}
		}
	}
}

func TestParseLiteralRejectsNames(t *testing.T) {
	for _, h := range []string{"example.com", "1.example", "0x", "08.0.0.1", "1.2.3.4.5", "256.1.1.1", "4294967296", ""} {
		if ip, ok := parseLiteral(h); ok {
			t.Errorf("parseLiteral(%q) = %s, want not an address", h, ip)
		}
	}
	for h, want := range map[string]string{"10.1.2": "10.1.0.2", "1": "0.0.0.1", "0xA.0.0.1": "10.0.0.1"} {
		if ip, ok := parseLiteral(h); !ok || ip.String() != want {
			t.Errorf("parseLiteral(%q) = %s %v, want %s", h, ip, ok, want)
		}
	}
}

// fakeResolver answers names from a table; rebinding answers a public address the
// first time and loopback afterwards.
type fakeResolver struct {
	table map[string][]string
	calls map[string]int
}

func (f *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.calls[host]++
	answers := f.table[host]
	if host == "rebind.example" && f.calls[host] > 1 {
		answers = []string{"127.0.0.1"}
	}
	if len(answers) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range answers {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestDialChecksTheResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	r := &fakeResolver{calls: map[string]int{}, table: map[string][]string{
		"internal.example": {"10.0.0.7"},
		"mixed.example":    {"93.184.215.14", "127.0.0.1"},
		"mapped.example":   {"::ffff:169.254.169.254"},
		"compat.example":   {"::7f00:1"},
		"compat10.example": {"::10.0.0.1"},
		"mapped10.example": {"::ffff:a00:1"},
		"rebind.example":   {"93.184.215.14"},
		"hooks.test":       {"127.0.0.1"},
	}}
	guarded := &Dialer{Resolver: r}
	// Publishing does not resolve, so a name passes Check without a warning ...
	if _, warn, err := checkTarget("http://rebind.example/hook"); err != nil || warn != "" {
		t.Fatalf("checkTarget(rebind.example) = %q, %v", warn, err)
	}
	_, _ = r.LookupNetIP(context.Background(), "ip", "rebind.example") // the name looked public once
	// ... and the dial-time check sees what the name resolves to now.
	for host, reason := range map[string]string{"internal.example": "private", "mixed.example": "loopback",
		"mapped.example": "link-local", "rebind.example": "loopback", "hooks.test": "loopback",
		"compat.example": "ipv4-compatible", "compat10.example": "ipv4-compatible", "mapped10.example": "private"} {
		_, err := guarded.DialContext(context.Background(), "tcp", net.JoinHostPort(host, port))
		var ref *RefusedError
		if !errors.As(err, &ref) || ref.Reason != reason {
			t.Errorf("dial %s: %v, want refused as %s", host, err, reason)
		}
	}
	if _, err := guarded.DialContext(context.Background(), "tcp", "nxdomain.example:80"); err == nil || errors.As(err, new(*RefusedError)) {
		t.Errorf("unresolvable name: %v, want a resolution error", err)
	}
	// With private targets allowed, the checked address is the one dialled.
	open := &Dialer{Resolver: r, AllowPrivate: true}
	c, err := open.DialContext(context.Background(), "tcp", net.JoinHostPort("hooks.test", port))
	if err != nil {
		t.Fatalf("allowed dial: %v", err)
	}
	if got := c.RemoteAddr().String(); got != net.JoinHostPort("127.0.0.1", port) {
		t.Errorf("dialled %s", got)
	}
	c.Close()
}
