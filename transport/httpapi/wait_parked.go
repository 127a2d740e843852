package httpapi

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/stream"
)

// Parked long-polls: GET /v1/pages/:id/wait on HTTP/1.1 holds no goroutine and no
// buffer while it waits. Once the request is validated, its place held and the
// waiter subscribed to the page (which checks access and reads the status in one
// message), the connection is hijacked: what remains is the socket, a parkedWait,
// a timer, and a registration with the stream hub's poller that reports a client
// hanging up. The decision (or the timeout) answers it with the bytes net/http
// would have written, after checking the key again; the connection then goes back
// to net/http for its next request (WithResume), or closes when the client asked.

// parkedWaits is the server's share of the parked waiters.
type parkedWaits struct {
	mu      sync.Mutex
	batches map[string]*answerBatch // outcomeKey -> the waiters its one read answers
}

type resumeKey struct{}

// WithResume marks a connection's context (http.Server.ConnContext) as one whose
// waits may park: resume must serve a connection it is handed as a new one of the
// same HTTP server, and report false when it can no longer (the server is shutting
// down; the connection is then closed). Connections without it wait on their
// goroutine.
func WithResume(ctx context.Context, resume func(net.Conn) bool) context.Context {
	return context.WithValue(ctx, resumeKey{}, resume)
}

func resumeOf(r *http.Request) func(net.Conn) bool {
	fn, _ := r.Context().Value(resumeKey{}).(func(net.Conn) bool)
	return fn
}

// canPark tells whether r's wait can park: its server can take the connection
// back (WithResume), HTTP/1.1 (hijackable; HTTP/1.0 and HTTP/2 wait on their
// goroutine as before), no TLS terminated here, no request body, and a hub whose
// poller can watch the socket.
func (s *Server) canPark(r *http.Request) bool {
	return s.rt != nil && s.rt.d.Hub != nil && s.rt.d.Hub.CanWatch() && resumeOf(r) != nil &&
		r.ProtoMajor == 1 && r.ProtoMinor == 1 && r.TLS == nil && r.ContentLength == 0
}

// The life of a parked waiter: subscribed while the request is still on its
// goroutine (parking), then parked, then answering or abandoned (the client left).
// firedEarly: the page settled before the connection was hijacked. Every change
// of state happens under mu, and each waiter is answered or abandoned once.
const (
	parking uint8 = iota
	firedEarly
	parked
	answering
	abandoned
)

// parkedWait is one waiting request after its goroutine has gone. As a page
// subscriber (Send, Close, End) it never blocks the page actor: it only changes
// state and joins a batch of answers.
type parkedWait struct {
	s       *Server
	id      string
	token   string // the bearer key, authenticated again when the answer is written
	who     tenant.Principal
	header  string // set before the hijack (nosniff, rate limits), as net/http writes them: part of the answer
	close   bool   // the client sent Connection: close
	resume  func(net.Conn) bool
	release func() // the open-waits place (holdWait)

	mu       sync.Mutex
	state    uint8
	timedOut bool
	nc       net.Conn
	timer    *time.Timer
	unwatch  func()
}

// Send is offered every event of the page; a settling one answers the wait.
func (p *parkedWait) Send(f *frame.Frame) bool {
	if settled(f.Type) {
		p.fire(false)
	}
	return true
}

// Close and End: the page dropped its subscribers; the answer is the page as it
// now is (or the refusal, when the key no longer opens it).
func (p *parkedWait) Close()             { p.fire(false) }
func (p *parkedWait) End(_ *frame.Frame) { p.fire(false) }

// fire answers the wait: the page settled, dropped it, or the timeout passed.
func (p *parkedWait) fire(timedOut bool) {
	p.mu.Lock()
	switch p.state {
	case parking:
		p.state, p.timedOut = firedEarly, timedOut
		p.mu.Unlock()
	case parked:
		p.state, p.timedOut = answering, timedOut
		p.mu.Unlock()
		p.s.parked.enqueue(p, timedOut)
	default:
		p.mu.Unlock()
	}
}

// hangUp runs on the poller when the client has gone: nobody is left to answer.
func (p *parkedWait) hangUp() {
	p.mu.Lock()
	if p.state != parked {
		p.mu.Unlock()
		return
	}
	p.state = abandoned
	p.mu.Unlock()
	p.detach()
	_ = p.nc.Close()
	p.release()
}

// detach stops what watches a waiter that is being answered or abandoned: its
// timer, the poller's registration, its page subscription.
func (p *parkedWait) detach() {
	p.mu.Lock()
	t, u := p.timer, p.unwatch
	p.unwatch = nil
	p.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if u != nil {
		u()
	}
	p.s.pages.Tell(p.id, &page.Unsubscribe{Sub: p})
}

// waitParked serves a wait that canPark allows. parked false with a nil error:
// the connection could not be hijacked, nothing was written, and the caller waits
// on its goroutine as before (release still the caller's). Otherwise the request
// is answered, refused, or parked, and release is taken care of.
func (s *Server) waitParked(w http.ResponseWriter, r *http.Request, id string, who tenant.Principal, timeout time.Duration, release func()) (bool, error) {
	token, _ := bearer(r)
	p := &parkedWait{s: s, id: strings.Clone(id), token: strings.Clone(token), who: who, close: r.Close, resume: resumeOf(r), release: release}
	v := page.Viewer{TenantID: who.TenantID, Agent: who.Agent(), KeyID: who.KeyID}
	sub, err := registry.Call[*page.Subscribed](r.Context(), s.pages, id, &page.Subscribe{Viewer: v, Sub: p})
	if err != nil {
		release()
		return true, err
	}
	if sub.TenantID != who.TenantID { // another tenant's page: 404 now, not when it is decided
		s.pages.Tell(id, &page.Unsubscribe{Sub: p})
		release()
		return true, fault.Missing("page", id)
	}
	if sub.Status != page.Active { // nothing to wait for: answered at once, as before
		s.pages.Tell(id, &page.Unsubscribe{Sub: p})
		defer release()
		return true, s.answerWait(w, r, id, who, false)
	}
	var head strings.Builder
	_ = w.Header().Write(&head)
	p.header = head.String()
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.pages.Tell(id, &page.Unsubscribe{Sub: p})
		return false, nil
	}
	if n := brw.Reader.Buffered(); n > 0 { // the client sent its next request already
		rest, _ := brw.Reader.Peek(n)
		nc = &prefixConn{Conn: nc, rest: bytes.Clone(rest)}
	}
	p.mu.Lock()
	p.nc = nc
	if p.state == firedEarly {
		p.state = answering
		timedOut := p.timedOut
		p.mu.Unlock()
		s.parked.enqueue(p, timedOut)
		return true, nil
	}
	p.state = parked
	p.timer = time.AfterFunc(timeout, func() { p.fire(true) })
	p.mu.Unlock()
	if unwatch, ok := s.rt.d.Hub.WatchHangup(nc, p.hangUp); ok {
		p.mu.Lock()
		if p.state == parked {
			p.unwatch = unwatch
			unwatch = nil
		}
		p.mu.Unlock()
		if unwatch != nil { // answered or abandoned meanwhile: its detach found nothing to stop
			unwatch()
		}
	}
	return true, nil
}

// answerBatch is the waiters one read of an outcome answers.
type answerBatch struct{ waiters []*parkedWait }

// enqueue adds p to the batch that reads its outcome, starting one when none is
// reading it: a decision wakes every waiter of the page at once, and they share
// one read and one encoding (as the flight does for waits on their goroutine).
func (pw *parkedWaits) enqueue(p *parkedWait, timedOut bool) {
	key := outcomeKey(p.who, p.id, timedOut)
	pw.mu.Lock()
	b := pw.batches[key]
	if b == nil {
		if pw.batches == nil {
			pw.batches = map[string]*answerBatch{}
		}
		b = &answerBatch{}
		pw.batches[key] = b
		go p.s.answerBatch(key, b, p, timedOut)
	}
	b.waiters = append(b.waiters, p)
	pw.mu.Unlock()
}

// answerBatch reads the outcome once (as the first waiter: every waiter of the
// batch is of the same tenant) and answers the batch's waiters, spread over at
// most one goroutine per CPU. Waiters that join after the read start a new batch.
func (s *Server) answerBatch(key string, b *answerBatch, first *parkedWait, timedOut bool) {
	body, err := s.outcomeBody(context.Background(), first.id, first.who, timedOut)
	s.parked.mu.Lock()
	delete(s.parked.batches, key)
	waiters := b.waiters
	s.parked.mu.Unlock()
	parts := min(runtime.GOMAXPROCS(0), (len(waiters)+255)/256)
	if parts <= 1 {
		for _, p := range waiters {
			p.answer(body, err)
		}
		return
	}
	var wg sync.WaitGroup
	per := (len(waiters) + parts - 1) / parts
	for i := 0; i < len(waiters); i += per {
		part := waiters[i:min(i+per, len(waiters))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range part {
				p.answer(body, err)
			}
		}()
	}
	wg.Wait()
}

// parkedWriteTimeout bounds the write of an answer the socket could not take at
// once (its client does not read).
const parkedWriteTimeout = 10 * time.Second

// answer writes p's response, then hands the connection back for its next
// request (or closes it, when the client asked), and frees p's place.
func (p *parkedWait) answer(body []byte, err error) {
	p.detach()
	resp := p.response(body, err, time.Now())
	n, werr := stream.WriteNow(p.nc, resp)
	if werr != nil {
		_ = p.nc.Close()
		p.release()
		return
	}
	if n == len(resp) {
		p.done()
		return
	}
	go func() { // the socket's buffer is full: this client alone waits for it
		_ = p.nc.SetWriteDeadline(time.Now().Add(parkedWriteTimeout))
		if _, err := p.nc.Write(resp[n:]); err != nil {
			_ = p.nc.Close()
			p.release()
			return
		}
		_ = p.nc.SetWriteDeadline(time.Time{})
		p.done()
	}()
}

// done follows a written answer: the connection serves the client's next request,
// unless it asked to close (or the server no longer takes connections).
func (p *parkedWait) done() {
	if p.close || !p.resume(p.nc) {
		_ = p.nc.Close()
	}
	p.release()
}

// response is the answer as net/http would have written it from the handler: the
// outcome (or the error envelope), with the headers set before the hijack. The key
// is authenticated again first: a key deleted while its request waited gets the
// 401 a new request would.
func (p *parkedWait) response(body []byte, err error, now time.Time) []byte {
	rec := &answerRecorder{header: parseHeader(p.header), status: http.StatusOK}
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/v1/pages/" + p.id + "/wait"}}
	_, ok, aerr := p.s.keys.Authenticate(p.token)
	switch {
	case aerr != nil:
		p.s.writeError(rec, req, aerr)
	case !ok:
		p.s.writeError(rec, req, fault.New(fault.Unauthorized, "the API key is invalid or was revoked", nil))
	case err != nil:
		p.s.writeError(rec, req, err)
	default:
		rec.header.Set("Content-Type", "application/json")
		_, _ = rec.Write(body)
	}
	return rec.bytes(p.close, now)
}

// answerRecorder collects a response written through the http.ResponseWriter
// interface, so that the handlers' own code (writeError) builds parked answers.
type answerRecorder struct {
	header http.Header
	status int
	wrote  bool
	body   []byte
}

func (a *answerRecorder) Header() http.Header { return a.header }

func (a *answerRecorder) WriteHeader(status int) {
	if !a.wrote {
		a.status, a.wrote = status, true
	}
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	a.wrote = true
	a.body = append(a.body, b...)
	return len(b), nil
}

// chunkingAfter is net/http's bufferBeforeChunkingSize: a handler's body written
// in one piece up to this size is sent with Content-Length, a longer one chunked.
const chunkingAfter = 2048

// bytes lays the response out as net/http's server does for a handler that wrote
// its body in one piece on HTTP/1.1: the status line, the handler's headers in
// sorted order, then Date, Content-Length (or Transfer-Encoding: chunked, past
// chunkingAfter), a sniffed Content-Type when none was set, and Connection: close
// when the client asked for it.
func (a *answerRecorder) bytes(closeAfter bool, now time.Time) []byte {
	var b bytes.Buffer
	b.Grow(256 + len(a.body))
	b.WriteString("HTTP/1.1 ")
	if text := http.StatusText(a.status); text != "" {
		b.WriteString(strconv.Itoa(a.status) + " " + text + "\r\n")
	} else {
		b.WriteString(strconv.Itoa(a.status) + " status code " + strconv.Itoa(a.status) + "\r\n")
	}
	_ = a.header.Write(&b)
	if _, ok := a.header["Date"]; !ok {
		b.WriteString("Date: " + now.UTC().Format(http.TimeFormat) + "\r\n")
	}
	chunked := len(a.body) > chunkingAfter
	if !chunked {
		b.WriteString("Content-Length: " + strconv.Itoa(len(a.body)) + "\r\n")
	}
	if _, ok := a.header["Content-Type"]; !ok && len(a.body) > 0 {
		b.WriteString("Content-Type: " + http.DetectContentType(a.body) + "\r\n")
	}
	if closeAfter {
		b.WriteString("Connection: close\r\n")
	}
	if chunked {
		b.WriteString("Transfer-Encoding: chunked\r\n")
	}
	b.WriteString("\r\n")
	if !chunked {
		b.Write(a.body)
		return b.Bytes()
	}
	b.WriteString(strconv.FormatInt(int64(len(a.body)), 16) + "\r\n")
	b.Write(a.body)
	b.WriteString("\r\n0\r\n\r\n")
	return b.Bytes()
}

// parseHeader reads back header lines that http.Header.Write wrote (canonical
// keys, one value a line).
func parseHeader(lines string) http.Header {
	h := http.Header{}
	for line := range strings.SplitSeq(lines, "\r\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			h[k] = append(h[k], v)
		}
	}
	return h
}

// prefixConn is a connection whose client had sent more than its request when it
// was hijacked: those bytes are read first by whoever serves it next.
type prefixConn struct {
	net.Conn
	rest []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(b, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
