package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/callback"
	"folio/actors/inbox"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/admission"
	"folio/transport/credential"
)

// A signed-in person's own stream, GET /decide/stream (SSE, session cookie): what
// every Folio screen needs to stay current for them, whichever workspace its pages
// belong to. It sends
//
//	event: counts  {"decide": n, "list": digest, "workspaces": {id: {"unread": n, "failed": n}}}
//	event: needs   {"pageId", "title", "url", "overdue"}
//
// counts first, then whenever a count or the list changed ("list" changes with the
// rows, their order and their overdue marks, so the list screen redraws on it);
// needs for each page that newly waits on the person, or newly became overdue,
// since the stream opened (the pages waiting when it opened are not news). What is
// sent is read from the committed index when sent: the person's own list
// (inbox.NeedsDecisionOf), where a page of a workspace they do not belong to is
// listed only if it lets them in at that moment (page.Admits), so a person taken
// off a step, or a page no longer shared with them, is sent nothing more of it.
//
// The stream reads again when this node's bell rings for the person or one of the
// workspaces involved (a page commit, a delivery's outcome), when the nearest due
// time of a listed page passes, and at least every NeedsRefresh (changes committed
// on another node of a shared store). It holds a place among the open streams of
// the client and the session, and ends when the session does.

// needsRefreshDefault is how often a stream reads again when nothing rang.
const needsRefreshDefault = 15 * time.Second

// streamSettle lets a burst of rings (one commit rings the workspace and each
// assignee) make one read.
const streamSettle = 50 * time.Millisecond

// streamWriteTimeout bounds the write of one burst of events to a client.
const streamWriteTimeout = 10 * time.Second

func (s *Site) mountPersonStream(r Router) {
	r.Handle("GET", "/decide/stream", s.serve(s.personStream))
}

// personCounts is the counts event.
type personCounts struct {
	Decide     int                       `json:"decide"`
	List       string                    `json:"list"`
	Workspaces map[string]workspaceCount `json:"workspaces"`
}

type workspaceCount struct {
	Unread int `json:"unread"`
	Failed int `json:"failed"`
}

// needsNews is the needs event.
type needsNews struct {
	PageID  string `json:"pageId"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Overdue bool   `json:"overdue"`
}

// personState is one read of what the stream follows.
type personState struct {
	counts  personCounts
	rows    map[string]needsNews
	order   []string
	nextDue time.Time // the nearest due time still ahead (zero: none)
	tenants []string  // the workspaces of the rows
}

// asked is whose list c reads: their address, their workspaces, and the access
// check of another workspace's page, asked of the page itself when read.
func (s *Site) asked(ctx context.Context, c credential.Credential) inbox.Asked {
	q := inbox.Asked{Members: c.Tenants}
	if c.Session == nil {
		return q
	}
	q.Email = c.Session.Email
	viewer := c.Viewer()
	q.Admit = func(a *inbox.Awaited) bool {
		_, err := registry.Call[*page.Admitted](ctx, s.c.Pages, a.PageID, &page.Admits{Viewer: viewer})
		return err == nil
	}
	return q
}

// personRead reads the person's state now.
func (s *Site) personRead(ctx context.Context, c credential.Credential) (*personState, error) {
	now := s.c.Now()
	rows, total, err := inbox.NeedsDecisionOf(s.c.Store, s.asked(ctx, c), now, needsLimit)
	if err != nil {
		return nil, err
	}
	st := &personState{counts: personCounts{Decide: total, Workspaces: map[string]workspaceCount{}}, rows: map[string]needsNews{}}
	h := sha256.New()
	seen := map[string]bool{}
	for _, a := range rows {
		n := needsNews{PageID: a.PageID, Title: a.Title, URL: "/p/" + url.PathEscape(a.PageID), Overdue: a.Overdue(now)}
		st.rows[a.PageID] = n
		st.order = append(st.order, a.PageID)
		fmt.Fprintf(h, "%s\x00%s\x00%t\x00%v\x00%s\x00%v\n", a.PageID, a.Title, n.Overdue, a.DueAt, a.Priority, a.Steps)
		if a.DueAt != nil && now.Before(*a.DueAt) && (st.nextDue.IsZero() || a.DueAt.Before(st.nextDue)) {
			st.nextDue = *a.DueAt
		}
		if !seen[a.TenantID] {
			seen[a.TenantID] = true
			st.tenants = append(st.tenants, a.TenantID)
		}
	}
	fmt.Fprintf(h, "%d", total)
	st.counts.List = hex.EncodeToString(h.Sum(nil)[:8])
	for _, t := range c.Tenants {
		var wc workspaceCount
		if _, n, err := inbox.List(s.c.Store, t, inbox.Filter{Status: inbox.Unread}); err == nil {
			wc.Unread = n
		}
		if n, _, err := callback.FailedCounts(s.c.Store, t, ""); err == nil {
			wc.Failed = n
		}
		st.counts.Workspaces[t] = wc
	}
	return st, nil
}

// keys are the bell keys the stream listens to after reading st.
func (st *personState) keys(c credential.Credential) []string {
	keys := []string{inbox.PersonKey(c.Session.Email)}
	for _, t := range c.Tenants {
		keys = append(keys, inbox.TenantKey(t))
	}
	for _, t := range st.tenants {
		keys = append(keys, inbox.TenantKey(t))
	}
	return keys
}

// news is what st says that prev did not: pages newly waiting, or newly overdue.
func (st *personState) news(prev *personState) []needsNews {
	var out []needsNews
	for _, id := range st.order {
		n := st.rows[id]
		was, ok := prev.rows[id]
		if !ok || (n.Overdue && !was.Overdue) {
			out = append(out, n)
		}
	}
	return out
}

// personStream is GET /decide/stream.
func (s *Site) personStream(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	me, c := s.me(w, r)
	if me == nil {
		http.Error(w, "Sign in first.", http.StatusUnauthorized)
		return nil
	}
	ended := make(chan struct{})
	var once sync.Once
	give, err := s.c.Admit.HoldStream(s.c.ClientAddress(r), admission.CredentialKey("", c.Session.ID))
	if err != nil {
		return err
	}
	defer give()
	// Signing out ends the stream; the watch is cancelled before the place is given back.
	cancel := s.c.People.OnEnd(c.Session.ID, func() { once.Do(func() { close(ended) }) })
	defer cancel()
	ctx := r.Context()
	st, err := s.personRead(ctx, c)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(frames []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(frames); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(eventFrame("counts", st.counts)) {
		return nil
	}
	bell := s.c.Bell
	if bell == nil {
		bell = inbox.NewBell() // never rung: the stream reads on its timers alone
	}
	rang, l := bell.Listen(st.keys(c))
	defer l.Stop()
	refresh := s.c.NeedsRefresh
	if refresh <= 0 {
		refresh = needsRefreshDefault
	}
	timer := time.NewTimer(refresh)
	defer timer.Stop()
	for {
		wait := refresh
		if !st.nextDue.IsZero() {
			wait = min(wait, st.nextDue.Sub(s.c.Now())+time.Millisecond)
		}
		timer.Reset(max(wait, time.Millisecond))
		quiet := false
		select {
		case <-ctx.Done():
			return nil
		case <-ended:
			return nil
		case <-rang:
			settle := time.NewTimer(streamSettle)
			select {
			case <-settle.C:
			case <-ctx.Done():
				settle.Stop()
				return nil
			}
		case <-timer.C:
			quiet = true
		}
		next, err := s.personRead(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			continue // the next ring or tick reads again
		}
		l.Retune(next.keys(c))
		var out []byte
		for _, n := range next.news(st) {
			out = append(out, eventFrame("needs", n)...)
		}
		if next.counts.List != st.counts.List || !sameCounts(next.counts, st.counts) {
			out = append(out, eventFrame("counts", next.counts)...)
		}
		if len(out) == 0 && quiet {
			out = []byte(": keepalive\n\n")
		}
		st = next
		if len(out) > 0 && !send(out) {
			return nil
		}
	}
}

func sameCounts(a, b personCounts) bool {
	if a.Decide != b.Decide || len(a.Workspaces) != len(b.Workspaces) {
		return false
	}
	for k, v := range a.Workspaces {
		if b.Workspaces[k] != v {
			return false
		}
	}
	return true
}

// eventFrame is one SSE event named name whose data is v as JSON (one line).
func eventFrame(name string, v any) []byte {
	b, _ := json.Marshal(v)
	return []byte("event: " + name + "\ndata: " + string(b) + "\n\n")
}
