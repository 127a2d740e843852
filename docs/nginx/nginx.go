// Package nginxconf holds the nginx configuration docs/cluster.md documents
// (folio.conf), so the documentation, its tests and `folio cluster --balancer
// nginx` read one file and cannot drift apart.
package nginxconf

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// Conf is docs/nginx/folio.conf as written.
//
//go:embed folio.conf
var Conf string

// Node is one node behind the balancer: its --node-name and its address (host:port).
type Node struct{ Name, Addr string }

var nodeName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Render is Conf with the given nodes in place of the example ones (in the upstream
// and in the MCP session map), and, when listen is not empty, the plain-HTTP
// variant: the lines marked TLS replaced by one `listen <listen>;`. Everything else
// stays as written. It fails when Conf lacks a part it replaces, so an edit of the
// file that would leave the rendered one silently wrong is caught by its tests.
func Render(nodes []Node, listen string) (string, error) {
	if len(nodes) == 0 {
		return "", fmt.Errorf("nginx: no nodes")
	}
	for _, n := range nodes {
		if !nodeName.MatchString(n.Name) {
			return "", fmt.Errorf("nginx: node name %q: want 1 to 32 letters, digits, - or _", n.Name)
		}
	}
	var out []string
	block := ""               // the block being read: "mcp", "upstream" or ""
	done := map[string]bool{} // replaced once already
	for _, line := range strings.Split(Conf, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "map $http_mcp_session_id "):
			block = "mcp"
		case strings.HasPrefix(t, "upstream folio "):
			block = "upstream"
		case t == "}":
			block = ""
		}
		switch {
		case block == "mcp" && strings.HasPrefix(t, "~^"):
			if !done["mcp"] {
				for _, n := range nodes {
					out = append(out, fmt.Sprintf("    %-12s%s;", `~^`+n.Name+`\.`, n.Addr))
				}
			}
			done["mcp"] = true
			continue
		case block == "upstream" && strings.HasPrefix(t, "server "):
			if !done["upstream"] {
				for _, n := range nodes {
					out = append(out, "    server "+n.Addr+";")
				}
			}
			done["upstream"] = true
			continue
		case listen != "" && strings.Contains(line, "# TLS"):
			if !done["tls"] {
				out = append(out, "    listen "+listen+";                                 # plain HTTP (folio cluster)")
			}
			done["tls"] = true
			continue
		}
		out = append(out, line)
	}
	for _, part := range []string{"mcp", "upstream"} {
		if !done[part] {
			return "", fmt.Errorf("nginx: folio.conf has no %s servers to replace", part)
		}
	}
	if listen != "" && !done["tls"] {
		return "", fmt.Errorf("nginx: folio.conf has no lines marked TLS to replace")
	}
	return strings.Join(out, "\n"), nil
}
