package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	nginxconf "folio/docs/nginx"
)

// `folio cluster --balancer nginx` runs Debian's nginx in front of the nodes with
// the documented configuration (docs/nginx/folio.conf), rendered with this
// cluster's nodes and as its plain-HTTP variant on 127.0.0.1:--balancer-port. Its
// files are in <data>/nginx/, written anew at each start: folio.conf (that
// rendering) and nginx.conf (nginx in the foreground, one process, every path
// under that directory, folio.conf included in http {}).

// balancerURL is the balancer's address.
func (c *cluster) balancerURL() string { return "http://127.0.0.1:" + strconv.Itoa(c.lbPort) }

// nginxMain is the main configuration around folio.conf (%[1]q: the directory).
const nginxMain = `# Written by folio cluster --balancer nginx at each start; folio.conf beside it is
# docs/nginx/folio.conf with this cluster's nodes.
daemon off;
master_process off;           # one process: it stops with folio cluster, no worker outlives it
pid %[1]q;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[2]q;
    proxy_temp_path %[3]q;
    fastcgi_temp_path %[4]q;
    uwsgi_temp_path %[5]q;
    scgi_temp_path %[6]q;
    include %[7]q;
}
`

// writeNginx writes the balancer's configuration for the given nodes into dir,
// listening on listen, and returns the main file's path.
func writeNginx(dir string, nodes []nginxconf.Node, listen string) (string, error) {
	conf, err := nginxconf.Render(nodes, listen)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return "", err
	}
	tmp := func(s string) string { return filepath.Join(dir, "tmp", s) }
	main := fmt.Sprintf(nginxMain, filepath.Join(dir, "nginx.pid"), tmp("body"), tmp("proxy"), tmp("fastcgi"), tmp("uwsgi"), tmp("scgi"),
		filepath.Join(dir, "folio.conf"))
	if err := os.WriteFile(filepath.Join(dir, "folio.conf"), []byte(conf), 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "nginx.conf")
	return path, os.WriteFile(path, []byte(main), 0o644)
}

// nginxBinary is Debian's nginx: on PATH, else in /usr/sbin (not on a user's PATH).
func nginxBinary() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", fmt.Errorf("cluster: --balancer nginx needs nginx: install it (apt-get install nginx), or leave --balancer out")
}

// nginxArgs is nginx's command line for the main file: its prefix the file's
// directory, its start-up errors on stderr (not /var/log/nginx).
func nginxArgs(main string, extra ...string) []string {
	return append([]string{"-p", filepath.Dir(main), "-c", main, "-e", "stderr"}, extra...)
}

// startBalancer writes nginx's configuration, checks it with nginx -t, starts
// nginx and waits until the nodes answer through it.
func (c *cluster) startBalancer(ctx context.Context, out *syncWriter) (*slot, error) {
	bin, err := nginxBinary()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(c.data, "nginx"))
	if err != nil {
		return nil, err
	}
	var nodes []nginxconf.Node
	for i := 1; i <= c.nodes; i++ {
		nodes = append(nodes, nginxconf.Node{Name: nodeName(i), Addr: "127.0.0.1:" + strconv.Itoa(c.port+i-1)})
	}
	main, err := writeNginx(dir, nodes, "127.0.0.1:"+strconv.Itoa(c.lbPort))
	if err != nil {
		return nil, fmt.Errorf("cluster: write the balancer's configuration: %w", err)
	}
	if b, err := exec.CommandContext(ctx, bin, nginxArgs(main, "-t", "-q")...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cluster: nginx refuses %s: %v\n%s", main, err, strings.TrimSpace(string(b)))
	}
	s := &slot{name: "nginx", url: c.balancerURL(), exe: bin, args: nginxArgs(main), out: out}
	exits := make(chan *child, 1)
	if err := s.start(exits); err != nil {
		return nil, err
	}
	if !s.waitHealthy(ctx, s.cur) {
		stopSlots([]*slot{s}, func(string, ...any) {})
		return nil, fmt.Errorf("cluster: nginx did not answer on %s (is the port taken? --balancer-port)", s.url)
	}
	return s, nil
}
