package realtime_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"folio/transport/node"
)

// The fan-out benchmark runs the server in a separate process (this test binary
// re-executed with FOLIO_BENCH_SERVER=1), so its CPU time (getrusage) and memory are
// measured apart from the clients'. The clients are real HTTP/1.1 SSE connections on
// loopback. Run:
//
//	go test -run '^$' -bench Fanout -benchtime 1x ./transport/node/e2e/realtime/
//
// FOLIO_BENCH_PROFILE=<dir> writes the server's CPU profile of each run there.

func TestMain(m *testing.M) {
	switch os.Getenv("FOLIO_BENCH_SERVER") {
	case "1":
		benchServer()
		return
	case "raw":
		rawWriter()
		return
	}
	os.Exit(m.Run())
}

// benchServer is the server process: it prints its address, then answers commands
// on stdin ("usage", "profile <path>", "stop-profile") until stdin closes.
func benchServer() {
	raiseFileLimit()
	dir, _ := os.MkdirTemp("", "folio-fanout-")
	defer os.RemoveAll(dir)
	n, err := node.Open(node.Config{Addr: "127.0.0.1:0", DataDir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	addr, err := n.Listen()
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	fmt.Println("ADDR", addr)
	sc := bufio.NewScanner(os.Stdin)
	var prof *os.File
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "usage": // CPU only: nothing here may cost the server CPU later
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			fmt.Printf("USAGE %d 0 0 0 0 %d\n", ru.Utime.Sec*1e6+ru.Utime.Usec+ru.Stime.Sec*1e6+ru.Stime.Usec, runtime.NumGoroutine())
		case "mem": // after a GC; RSS as is, then after returning free pages to the OS
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			rss := rssKiB()
			debug.FreeOSMemory()
			fmt.Printf("USAGE 0 %d %d %d %d %d\n", ms.HeapInuse, ms.StackInuse, rss, rssKiB(), runtime.NumGoroutine())
		case "profile":
			prof, _ = os.Create(f[1])
			_ = pprof.StartCPUProfile(prof)
			fmt.Println("OK")
		case "stop-profile":
			pprof.StopCPUProfile()
			if prof != nil {
				prof.Close()
			}
			fmt.Println("OK")
		}
	}
	_ = n.Close(context.Background())
}

func rssKiB() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// serverProc is the running server process.
type serverProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	addr string
}

type usage struct {
	cpuUS, heap, stack, rssKiB, rssFreedKiB, goroutines int64
}

func startServerProc(b *testing.B) *serverProc {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "FOLIO_BENCH_SERVER=1")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serverProc{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	if !p.out.Scan() || !strings.HasPrefix(p.out.Text(), "ADDR ") {
		b.Fatalf("server process: %q", p.out.Text())
	}
	p.addr = strings.TrimPrefix(p.out.Text(), "ADDR ")
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	return p
}

func (p *serverProc) cmdLine(b *testing.B, line string) string {
	fmt.Fprintln(p.in, line)
	if !p.out.Scan() {
		b.Fatalf("server process gone after %q", line)
	}
	return p.out.Text()
}

func (p *serverProc) usage(b *testing.B) usage { return p.sample(b, "usage") }

func (p *serverProc) mem(b *testing.B) usage { return p.sample(b, "mem") }

func (p *serverProc) sample(b *testing.B, what string) usage {
	f := strings.Fields(p.cmdLine(b, what))
	var u usage
	vals := []*int64{&u.cpuUS, &u.heap, &u.stack, &u.rssKiB, &u.rssFreedKiB, &u.goroutines}
	for i, v := range vals {
		*v, _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	return u
}

// sseSub is one subscriber: a raw HTTP/1.1 connection read by one goroutine that
// stamps the arrival of every bench event.
type sseSub struct {
	conn net.Conn
	lat  []time.Duration
	seen atomic.Int64
}

var benchMarker = []byte(`"content":"bench `)

func dialSub(addr, path string, connected *sync.WaitGroup) (*sseSub, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &sseSub{conn: c}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n", path)
	go func() {
		br := bufio.NewReaderSize(c, 4096)
		first := true
		for {
			line, err := br.ReadSlice('\n')
			if err != nil && err != bufio.ErrBufferFull {
				return
			}
			now := time.Now()
			if first && bytes.Contains(line, []byte(`"connected"`)) {
				first = false
				connected.Done()
				continue
			}
			i := bytes.Index(line, benchMarker)
			if i < 0 {
				continue
			}
			f := strings.Fields(string(line[i+len(benchMarker):]))
			if len(f) < 2 {
				continue
			}
			ns, _ := strconv.ParseInt(strings.TrimRight(f[1], `",}`), 10, 64)
			s.lat = append(s.lat, now.Sub(time.Unix(0, ns)))
			s.seen.Add(1)
		}
	}()
	return s, nil
}

func benchPost(addr, path, key, body string) error {
	req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %d %s", path, res.StatusCode, raw)
	}
	lastBody = raw
	return nil
}

var lastBody []byte

// BenchmarkFanout: one page, N SSE subscribers, comments at a fixed rate.
func BenchmarkFanout(b *testing.B) {
	raiseFileLimit()
	for _, tc := range []struct {
		subs   int
		rate   float64
		events int
	}{{1000, 5, 50}, {1000, 20, 100}, {5000, 5, 50}, {5000, 20, 100}} {
		b.Run(fmt.Sprintf("subs=%d/rate=%g", tc.subs, tc.rate), func(b *testing.B) {
			fanoutRun(b, tc.subs, tc.rate, tc.events)
		})
	}
}

func fanoutRun(b *testing.B, subs int, rate float64, events int) {
	p := startServerProc(b)
	if err := benchPost(p.addr, "/v1/auth/agent/register", "", `{"name":"bench"}`); err != nil {
		b.Fatal(err)
	}
	key := between(string(lastBody), `"apiKey":"`, `"`)
	if err := benchPost(p.addr, "/v1/publish", key, `{"title":"fan-out","blocks":[{"type":"text","data":{"content":"x"}}]}`); err != nil {
		b.Fatal(err)
	}
	pageID := between(string(lastBody), `"pageId":"`, `"`)

	before := p.mem(b)
	var connected sync.WaitGroup
	connected.Add(subs)
	clients := make([]*sseSub, 0, subs)
	t0 := time.Now()
	for i := 0; i < subs; i++ {
		s, err := dialSub(p.addr, "/v1/pages/"+pageID+"/events", &connected)
		if err != nil {
			b.Fatalf("subscriber %d: %v", i, err)
		}
		clients = append(clients, s)
	}
	connected.Wait()
	connectTime := time.Since(t0)
	time.Sleep(500 * time.Millisecond)
	idleMem := p.mem(b)
	time.Sleep(2 * time.Second) // let the page faults of the memory sample settle
	idle := p.usage(b)

	if dir := os.Getenv("FOLIO_BENCH_PROFILE"); dir != "" {
		p.cmdLine(b, fmt.Sprintf("profile %s/fanout-%d-%g.pprof", dir, subs, rate))
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for n := 0; n < events; n++ {
		if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
			time.Sleep(d)
		}
		body := fmt.Sprintf(`{"content":"bench %d %d","author_type":"agent"}`, n, time.Now().UnixNano())
		if err := benchPost(p.addr, "/v1/pages/"+pageID+"/comments", key, body); err != nil {
			b.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		done := 0
		for _, c := range clients {
			if c.seen.Load() >= int64(events) {
				done++
			}
		}
		if done == subs || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	after := p.usage(b)
	if os.Getenv("FOLIO_BENCH_PROFILE") != "" {
		p.cmdLine(b, "stop-profile")
	}
	var lat []time.Duration
	deliveries := 0
	for _, c := range clients {
		deliveries += int(c.seen.Load())
		lat = append(lat, c.lat...)
		c.conn.Close()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if deliveries != subs*events {
		b.Errorf("%d deliveries, want %d", deliveries, subs*events)
	}
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	cpuPer := float64(after.cpuUS-idle.cpuUS) / float64(deliveries)
	heapPer := float64((idleMem.heap+idleMem.stack)-(before.heap+before.stack)) / 1024 / float64(subs)
	rssPer := float64(idleMem.rssKiB-before.rssKiB) / float64(subs)
	rssFreedPer := float64(idleMem.rssFreedKiB-before.rssFreedKiB) / float64(subs)
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(cpuPer, "cpu-us/delivery")
	b.ReportMetric(heapPer, "heap-KiB/sub")
	b.ReportMetric(rssPer, "rss-KiB/sub")
	b.Logf("subs %d rate %g/s: %d deliveries; p50 %.1f ms p90 %.1f ms p99 %.1f ms max %.1f ms; server CPU %.2f µs/delivery; "+
		"idle memory per subscriber: heap+stacks %.2f KiB, RSS %.2f KiB (%.2f KiB after returning free pages); goroutines %d -> %d; connect %v",
		subs, rate, deliveries, pct(0.5), pct(0.9), pct(0.99), pct(1), cpuPer, heapPer, rssPer, rssFreedPer, before.goroutines, idleMem.goroutines, connectTime)
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

// rawWriter is the floor of any fan-out on this machine: a process that accepts
// connections and, per "write" command, writes one 400-byte chunk to each of them
// with plain write(2) calls made as raw system calls, as the hub's writers make them
// (no HTTP, no framing, no goroutines, no scheduler bookkeeping).
func rawWriter() {
	raiseFileLimit()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	fmt.Println("ADDR", ln.Addr())
	var mu sync.Mutex
	var fds []int
	var keep []any // the conns and files stay referenced: a collected *os.File closes its fd
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f, _ := c.(*net.TCPConn).File() // a dup: plain write(2) without the runtime's poller
			mu.Lock()
			fds = append(fds, int(f.Fd()))
			keep = append(keep, c, f)
			mu.Unlock()
		}
	}()
	msg := bytes.Repeat([]byte("x"), 399)
	msg = append(msg, '\n')
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "write":
			mu.Lock()
			failed := 0
			for _, fd := range fds {
				if _, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg))); e != 0 {
					failed++
				}
			}
			n := len(fds) - failed
			mu.Unlock()
			fmt.Println("OK", n)
		case "usage":
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			fmt.Printf("USAGE %d 0 0 0 0 0\n", ru.Utime.Sec*1e6+ru.Utime.Usec+ru.Stime.Sec*1e6+ru.Stime.Usec)
		}
	}
}

// BenchmarkRawLoopbackWrite measures the kernel's cost of one 400-byte write to a
// loopback TCP socket whose reader is another process (the floor under any
// per-delivery figure of BenchmarkFanout).
func BenchmarkRawLoopbackWrite(b *testing.B) {
	raiseFileLimit()
	for _, tc := range []struct {
		subs   int
		rate   float64
		events int
	}{{5000, 5, 50}, {5000, 20, 100}} {
		b.Run(fmt.Sprintf("subs=%d/rate=%g", tc.subs, tc.rate), func(b *testing.B) {
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), "FOLIO_BENCH_SERVER=raw")
			in, _ := cmd.StdinPipe()
			outPipe, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			p := &serverProc{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
			p.out.Scan()
			p.addr = strings.TrimPrefix(p.out.Text(), "ADDR ")
			defer func() { in.Close(); _ = cmd.Wait() }()
			var got atomic.Int64
			var conns []net.Conn
			for i := 0; i < tc.subs; i++ {
				c, err := net.Dial("tcp", p.addr)
				if err != nil {
					b.Fatal(err)
				}
				conns = append(conns, c)
				go func() {
					br := bufio.NewReaderSize(c, 4096)
					for {
						if _, err := br.ReadSlice('\n'); err != nil {
							return
						}
						got.Add(1)
					}
				}()
			}
			for {
				if f := strings.Fields(p.cmdLine(b, "write")); f[1] == fmt.Sprint(tc.subs) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			for prev := int64(-1); got.Load() != prev; { // the warm-up writes have all arrived
				prev = got.Load()
				time.Sleep(200 * time.Millisecond)
			}
			base := got.Load()
			before := p.usage(b)
			start := time.Now()
			interval := time.Duration(float64(time.Second) / tc.rate)
			for n := 0; n < tc.events; n++ {
				if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
					time.Sleep(d)
				}
				if f := strings.Fields(p.cmdLine(b, "write")); f[1] != fmt.Sprint(tc.subs) {
					b.Fatalf("write reached %s of %d sockets", f[1], tc.subs)
				}
			}
			for got.Load()-base < int64(tc.subs*tc.events) {
				time.Sleep(time.Millisecond)
			}
			after := p.usage(b)
			per := float64(after.cpuUS-before.cpuUS) / float64(tc.subs*tc.events)
			b.ReportMetric(per, "cpu-us/write")
			b.Logf("raw write(2) to %d loopback sockets at %g/s: %.2f µs CPU per write", tc.subs, tc.rate, per)
			for _, c := range conns {
				c.Close()
			}
		})
	}
}
