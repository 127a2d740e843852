package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/node/nodetest/ports"
)

// clusterRun is a `folio cluster` a test started: node i listens on port+i-1, the
// balancer (if any) at lb.
type clusterRun struct {
	cmd    *exec.Cmd
	out    *lines
	port   int
	lb     string
	exited chan struct{} // closed once the command has exited (err set)
	err    error
}

// startCluster runs `folio cluster --nodes n --balancer nginx` with clusterFlags,
// the serveFlags after --, and waits until it says it is ready. It is stopped with
// SIGINT when the test ends.
func startCluster(t *testing.T, n int, clusterFlags []string, serveFlags ...string) *clusterRun {
	t.Helper()
	dir := pgtest.ReachableTempDir(t)
	// Nodes, PostgreSQL, the nodes' NATS routes, the balancer: consecutive ports, so
	// none is a port the kernel hands out for :0 meanwhile.
	port := ports.Consecutive(t, 2*n+2)
	lbPort := port + 2*n + 1
	args := append([]string{"cluster", "--nodes", strconv.Itoa(n), "--port", strconv.Itoa(port), "--pg-port", strconv.Itoa(port + n),
		"--nats-port", strconv.Itoa(port + n + 1), "--data", dir, "--balancer", "nginx", "--balancer-port", strconv.Itoa(lbPort)}, clusterFlags...)
	args = append(append(args, "--", "--default-plan", "enterprise"), serveFlags...)
	c := &clusterRun{cmd: exec.Command(folioBinary(t), args...), out: &lines{}, port: port,
		lb: fmt.Sprintf("http://127.0.0.1:%d", lbPort), exited: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the test binary
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Signal(os.Interrupt)
		select {
		case <-c.exited:
		case <-time.After(time.Minute):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		if t.Failed() {
			t.Logf("folio cluster's output:\n%s", c.out)
		}
	})
	waitUntil(t, time.Minute, "the cluster says it is ready", func() bool {
		select {
		case <-c.exited:
			t.Fatalf("folio cluster exited at start: %v\n%s", c.err, c.out)
		default:
		}
		return c.out.has("cluster | ready: ")
	})
	return c
}

// node is node i's own address.
func (c *clusterRun) node(i int) string { return fmt.Sprintf("http://127.0.0.1:%d", c.port+i-1) }

// kill sends SIGKILL to node i's process.
func (c *clusterRun) kill(t *testing.T, i int) {
	t.Helper()
	pids := processesNaming(fmt.Sprintf("127.0.0.1:%d\x00--base-url", c.port+i-1))
	if len(pids) != 1 {
		t.Fatalf("node %d runs as %d processes: %v", i, len(pids), pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// TestClusterRestartsAKilledNodeWhileTheOthersServeThroughNginx runs the real
// `folio cluster --nodes 3 --balancer nginx` and four clients publishing through
// the balancer. Node 2 gets SIGKILL: at most the four requests in flight fail (one
// per client), the others keep being acknowledged while node 2 is down, the
// command starts node 2 again and says so, every acknowledged page reads back
// afterwards, and the command is still running.
func TestClusterRestartsAKilledNodeWhileTheOthersServeThroughNginx(t *testing.T) {
	c := startCluster(t, 3, nil, "--enforce-limits=false")
	lb := &proc{base: c.lb}
	st, reg, err := lb.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "failover"})
	if err != nil || st != 201 {
		t.Fatalf("register through the balancer: %d %v %v", st, reg, err)
	}
	key := reg["apiKey"].(string)

	const clients = 4
	var (
		mu       sync.Mutex
		acked    []string     // pages whose publish was answered 201
		failures []string     // every other outcome
		whileOut atomic.Int64 // publishes acknowledged while node 2 was down
		down     atomic.Bool  // node 2 killed, not yet back
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st, m, err := lb.callWith(client, "POST", "/v1/publish", key, publishBody(w*100000+i))
				mu.Lock()
				if err == nil && st == 201 {
					acked = append(acked, m["pageId"].(string))
					if down.Load() {
						whileOut.Add(1)
					}
				} else {
					failures = append(failures, fmt.Sprintf("%d %v %v", st, m, err))
				}
				mu.Unlock()
			}
		}()
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	waitUntil(t, 10*time.Second, "30 publishes through the balancer", func() bool { return count() >= 30 })
	down.Store(true)
	c.kill(t, 2)
	waitUntil(t, 20*time.Second, "folio cluster starts node 2 again", func() bool { return c.out.has("cluster | node2 answers again") })
	down.Store(false)
	before := count()
	waitUntil(t, 10*time.Second, "30 more publishes", func() bool { return count() >= before+30 })
	close(stop)
	wg.Wait()

	if len(failures) > clients {
		t.Errorf("%d requests failed, more than the %d that can have been in flight on node 2: %v", len(failures), clients, failures)
	}
	if whileOut.Load() == 0 {
		t.Errorf("no publish was acknowledged while node 2 was down")
	}
	if !c.out.has("cluster | node2 exited (signal: killed); starting it again in ") {
		t.Errorf("folio cluster did not say node 2 exited")
	}
	if st, _, err := (&proc{base: c.node(2)}).call("GET", "/healthz", "", nil); err != nil || st != 200 {
		t.Errorf("node 2 after its restart: %d %v", st, err)
	}
	for _, id := range acked { // nothing acknowledged is lost, whichever node wrote it
		if st, m, err := lb.call("GET", "/v1/pages/"+id, key, nil); err != nil || st != 200 {
			t.Fatalf("acknowledged page %s: %d %v %v", id, st, m, err)
		}
	}
	select {
	case <-c.exited:
		t.Fatalf("folio cluster exited: %v", c.err)
	default:
	}
	t.Logf("%d publishes acknowledged (%d while node 2 was down), %d failed: %v", len(acked), whileOut.Load(), len(failures), failures)
}
