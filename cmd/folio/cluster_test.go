package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"
)

// TestClusterServesOnePageFromEveryNodeAndLeavesNoProcess runs the real `folio
// cluster --nodes 2`: a page published through node 1 reads through node 2, a file
// uploaded through node 2 is completed on node 1 and downloaded through node 2 (one
// shared files directory, one signing secret), the flags after -- reach every node;
// then one SIGINT stops the nodes, then PostgreSQL, and no process of the cluster
// (node, postmaster or backend) is left.
func TestClusterServesOnePageFromEveryNodeAndLeavesNoProcess(t *testing.T) {
	dir := pgtest.ReachableTempDir(t)
	// The nodes on the first two ports, PostgreSQL on the third, the nodes' NATS
	// routes on the last two: a port the kernel hands out for :0 could otherwise be
	// a node's.
	port := ports.Consecutive(t, 5)
	cmd := exec.Command(folioBinary(t), "cluster", "--nodes", "2", "--port", strconv.Itoa(port), "--pg-port", strconv.Itoa(port+2),
		"--nats-port", strconv.Itoa(port+3), "--data", dir, "--", "--default-plan", "enterprise")
	out := &lines{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the test binary
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{}) // closed once the cluster has exited (waitErr set)
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill() // its children die with it (Pdeathsig)
			<-exited
		}
	})
	waitUntil(t, 2*time.Minute, "the cluster says it is ready", func() bool {
		select {
		case <-exited:
			t.Fatalf("folio cluster exited at start: %v\n%s", waitErr, out)
		default:
		}
		return out.has("cluster | ready: 2 nodes")
	})
	n1 := &proc{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	n2 := &proc{base: fmt.Sprintf("http://127.0.0.1:%d", port+1)}
	for _, n := range []*proc{n1, n2} { // their embedded NATS servers found each other
		waitUntil(t, 30*time.Second, n.base+" routed to the other node", func() bool {
			return nodetest.Metric(t, n.base, "folio_cluster_peers") == 1
		})
	}

	// A key from each node; both tenants have the plan given after --.
	var key string
	for _, n := range []*proc{n2, n1} {
		st, reg, err := n.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "cluster-test"})
		if err != nil || st != 201 {
			t.Fatalf("register on %s: %d %v %v", n.base, st, reg, err)
		}
		key, _ = reg["apiKey"].(string)
		if st, ten, err := n.call("GET", "/v1/tenant", key, nil); err != nil || st != 200 || ten["plan"] != "enterprise" {
			t.Fatalf("tenant on %s: %d %v %v, want the plan given after --", n.base, st, ten, err)
		}
	}

	st, m, err := n1.call("POST", "/v1/publish", key, publishBody(1))
	if err != nil || st != 201 {
		t.Fatalf("publish on node 1: %d %v %v", st, m, err)
	}
	id, _ := m["pageId"].(string)
	if st, m, err := n2.call("GET", "/v1/pages/"+id, key, nil); err != nil || st != 200 || m["title"] != "Page 1" {
		t.Fatalf("read on node 2: %d %v %v", st, m, err)
	}

	content := []byte("written through node 2")
	st, up, err := n1.call("POST", "/v1/pages/"+id+"/files/presign", key, map[string]any{
		"filename": "notes.txt", "mime_type": "text/plain", "size_bytes": len(content), "uploaded_by": "alice"})
	if err != nil || st != 200 {
		t.Fatalf("presign on node 1: %d %v %v", st, up, err)
	}
	uploadURL, _ := up["uploadUrl"].(string)
	req, _ := http.NewRequest("PUT", n2.base+uploadURL, bytes.NewReader(content))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("upload through node 2: %d", res.StatusCode)
	}
	st, file, err := n1.call("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": up["storageKey"]})
	if err != nil || st != 201 {
		t.Fatalf("complete on node 1: %d %v %v", st, file, err)
	}
	req, _ = http.NewRequest("GET", fmt.Sprintf("%s/v1/pages/%s/files/%v/download", n2.base, id, file["id"]), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err = http.DefaultClient.Do(req) // follows the 302 to node 2's signed address
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, content) {
		t.Fatalf("download through node 2: %d %q, want %q", res.StatusCode, got, content)
	}

	family := descendants(cmd.Process.Pid)
	if len(family) < 3 { // two nodes and the postmaster at least
		t.Fatalf("the cluster has %d processes under it: %v", len(family), family)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("folio cluster after SIGINT: %v\n%s", waitErr, out)
		}
	case <-time.After(time.Minute):
		t.Fatalf("folio cluster still running a minute after SIGINT\n%s", out)
	}
	waitUntil(t, 10*time.Second, "every process of the cluster has exited", func() bool {
		for p := range family {
			if family[p] == startTime(p) {
				return false
			}
		}
		return len(processesNaming(dir)) == 0
	})

	// The nodes stopped cleanly, and before PostgreSQL did.
	log := out.String()
	for _, n := range []string{"node1", "node2"} {
		if !hasLine(log, n, "stopped cleanly") {
			t.Errorf("%s did not stop cleanly:\n%s", n, log)
		}
	}
	if i, j := strings.LastIndex(log, "stopped cleanly"), strings.Index(log, "cluster | stopping PostgreSQL"); j < 0 || i > j {
		t.Errorf("PostgreSQL stopped before the nodes:\n%s", log)
	}
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lines is a process's output, safe to read while the process writes it.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lines) has(s string) bool { return strings.Contains(l.String(), s) }

// hasLine reports whether a line of log starts with prefix and holds s.
func hasLine(log, prefix, s string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// descendants maps every process under pid (children, their children…) to its
// start time, which tells it from a later process given the same id.
func descendants(pid int) map[int]string {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	out := map[int]string{}
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				if st := startTime(p); st != "" {
					out[p] = st
				}
				break
			}
		}
	}
	return out
}

// statFields are the fields of /proc/<pid>/stat after the command name: state,
// ppid, … (starttime is the 20th); nil for a process that is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// startTime is pid's start time, or "" when no such process runs (a zombie counts
// as gone: it runs nothing and holds no port).
func startTime(pid int) string {
	f := statFields(pid)
	if len(f) < 20 || f[0] == "Z" {
		return ""
	}
	return f[19]
}

// processesNaming lists the processes whose command line holds s.
func processesNaming(s string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && bytes.Contains(b, []byte(s)) {
			if startTime(p) != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
