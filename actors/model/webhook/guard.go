package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// special lists the ranges no delivery may reach, with the reason reported.
var special = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "cgnat"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	// IPv4-compatible (deprecated, RFC 4291 §2.5.5.1): ::127.0.0.1 is ::7f00:1. No
	// delivery target is written this way, and some stacks carry it to the IPv4
	// address, so the whole range is refused, whatever address it embeds.
	{netip.MustParsePrefix("::/96"), "ipv4-compatible"},
	// IPv4-translated (SIIT, RFC 2765): ::ffff:0:7f00:1.
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "ipv4-translated"},
	{netip.MustParsePrefix("64:ff9b::/96"), "nat64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "nat64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/23"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fc00::/7"), "private"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// blocked returns why ip may not be a delivery target, or "" when it may.
//
// An IPv4-mapped IPv6 address (::ffff:0:0/96, ::ffff:a.b.c.d or ::ffff:7f00:1) is
// judged as the IPv4 address it carries, and is dialled as that address: the
// resolver hands back every A record in this form, so refusing the range outright
// would refuse every IPv4 target, while judging the carried address refuses
// ::ffff:127.0.0.1 as loopback and ::ffff:169.254.169.254 as link-local.
func blocked(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid"
	}
	ip = ip.Unmap()
	if ip.Zone() != "" {
		return "link-local"
	}
	for _, s := range special {
		if s.prefix.Contains(ip) {
			return s.reason
		}
	}
	return ""
}

// parseLiteral reads host as an IP address in every form resolvers and browsers
// accept: dotted quads, IPv6 (with or without brackets), and the inet_aton forms
// that attackers use to slip past naive checks: decimal (2130706433), hex
// (0x7f000001), octal (0177.0.0.1) and short forms (127.1, 10.1.2).
func parseLiteral(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	parts := strings.Split(strings.TrimSuffix(h, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := atonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	// The last part fills all remaining bytes: a.b.c.d, a.b.(16 bits), a.(24 bits), (32 bits).
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func atonPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	n, err := strconv.ParseUint(p, base, 33)
	return n, err == nil
}

// checkTarget validates a delivery target URL as given at publish time. err (for a 400)
// says why it is not a usable http(s) URL; warning is advisory: the host is a literal
// special address, or a name that always means this machine, so the delivery will be
// refused at dial time unless private targets are allowed.
func checkTarget(raw string) (u *url.URL, warning string, err error) {
	if len(raw) > 2048 {
		return nil, "", errors.New("is longer than 2048 characters")
	}
	u, perr := url.Parse(raw)
	if perr != nil {
		return nil, "", errors.New("is not a valid URL")
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, "", fmt.Errorf("must be an http or https URL, not %q", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, "", errors.New("has no host")
	}
	if u.User != nil {
		return nil, "", errors.New("must not carry user credentials; use on_action.headers")
	}
	// A fully qualified name may end with a dot ("localhost.", "10.0.0.1." is not an
	// address but "localhost." resolves like "localhost"): judge it without the dot.
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip, ok := parseLiteral(host); ok {
		if why := blocked(ip); why != "" {
			return u, fmt.Sprintf("the address %s is %s; deliveries to it are refused", ip.Unmap(), why), nil
		}
		return u, "", nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || host == "localhost.localdomain" {
		return u, fmt.Sprintf("the host %s is this machine (loopback); deliveries to it are refused", host), nil
	}
	return u, "", nil
}

// RefusedError is a dial the guard refused: the target resolved to a special address.
type RefusedError struct {
	Host   string
	Addr   netip.Addr
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Addr.IsValid() && e.Host != e.Addr.String() {
		return fmt.Sprintf("refused: %s resolves to %s, a %s address", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("refused: %s is a %s address", e.Addr, e.Reason)
}

// Resolver looks up the addresses of a host (net.Resolver satisfies it).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer dials delivery targets through the guard.
type Dialer struct {
	// AllowPrivate turns the guard off (--allow-private-callbacks).
	AllowPrivate bool
	// Resolver defaults to net.DefaultResolver.
	Resolver Resolver
	// Timeout of the TCP connect (the caller's context bounds the whole request).
	Timeout time.Duration
}

// DialContext resolves addr's host, refuses it when any of its addresses is special
// (unless AllowPrivate) and connects to the checked addresses only.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, ok := parseLiteral(host); ok {
		ips = []netip.Addr{ip}
	} else {
		r := d.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if ips, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	if !d.AllowPrivate {
		for _, ip := range ips {
			if why := blocked(ip); why != "" {
				return nil, &RefusedError{Host: host, Addr: ip.Unmap(), Reason: why}
			}
		}
	}
	nd := net.Dialer{Timeout: d.Timeout}
	if nd.Timeout <= 0 {
		nd.Timeout = 10 * time.Second
	}
	var last error
	for _, ip := range ips {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}
