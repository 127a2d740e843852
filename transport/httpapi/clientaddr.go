package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// TrustedProxies are the networks whose connections may say who the client is
// (X-Forwarded-For) and how it reached the service (X-Forwarded-Proto): the load
// balancers in front of the nodes (--trusted-proxies). Empty trusts no header.
type TrustedProxies []netip.Prefix

// ParseTrustedProxies reads a comma-separated list of CIDRs (10.0.0.0/8, fd00::/8);
// a bare address is its own /32 or /128. Empty is the empty list.
func ParseTrustedProxies(list string) (TrustedProxies, error) {
	var out TrustedProxies
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("%q is neither a CIDR (10.0.0.0/8) nor an address", part)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or fd00::/8", part)
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Trusts tells whether a is inside one of the trusted networks.
func (t TrustedProxies) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// AddressKey is the bucket one client address is counted in by every per-address
// limit: an IPv4 address as itself, an IPv6 address by its /64 (which one
// subscriber usually holds whole, so a host cannot escape a limit by rotating the
// low bits).
func AddressKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// peerAddr is the TCP peer of r; ok is false when RemoteAddr is not an address
// (a request made in process).
func peerAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// ClientAddress is the key of the client behind a request, the one every
// per-address limit counts (AddressKey: IPv6 by /64). It is the TCP peer, unless
// the peer is a trusted proxy: then X-Forwarded-For is read from the right,
// skipping the trusted hops, and the first untrusted hop is the client (all
// trusted: the leftmost). A malformed hop, or no header, leaves the peer: a header
// a client could forge is never believed past the proxy that appended to it.
// The composition root hands this method to whatever else keys by client
// (the MCP handler).
func (s *Server) ClientAddress(r *http.Request) string {
	peer, ok := peerAddr(r)
	if !ok {
		return r.RemoteAddr
	}
	if !s.trusted.Trusts(peer) {
		return AddressKey(peer)
	}
	hops := forwardedFor(r)
	if len(hops) == 0 {
		return AddressKey(peer)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			return AddressKey(peer)
		}
		client = a
		if !s.trusted.Trusts(a) {
			break
		}
	}
	return AddressKey(client)
}

// forwardedFor is every hop of every X-Forwarded-For field, in order.
func forwardedFor(r *http.Request) []string {
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(v, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	return hops
}

// parseHop reads one X-Forwarded-For entry: an address, or an address with a port
// (1.2.3.4:5678, [2001:db8::1]:80).
func parseHop(h string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(h); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// forwardedHTTPS tells whether a trusted proxy says the client reached it over
// https (X-Forwarded-Proto, its first value); from anyone else the header is
// ignored.
func (s *Server) forwardedHTTPS(r *http.Request) bool {
	peer, ok := peerAddr(r)
	if !ok || !s.trusted.Trusts(peer) {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}
