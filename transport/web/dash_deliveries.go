package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/callback"
	"folio/actors/inbox"
	"folio/actors/model/fault"
	"folio/transport/status"
)

// The delivery log: every callback and notification the workspace's pages caused,
// newest first (callback.ListTenant), filtered by state and by page; one delivery
// with its attempts, the body and the headers exactly as they were sent (the agent's
// own headers by name only), and a retry.

// mountDeliveries registers the dashboard's deliveries screens.
func (s *Site) mountDeliveries(r Router) {
	r.Handle("GET", "/deliveries", s.serve(s.deliveriesScreen))
	r.Handle("GET", "/deliveries/:id", s.serve(s.deliveryScreen))
	r.Handle("POST", "/deliveries/:id/retry", s.serve(s.retryDelivery))
}

// deliveriesPageSize is how many deliveries one screen of the log lists.
const deliveriesPageSize = 25

// deliveryStates are the log's filters; a delivery of an sk_test_ page's
// notification (skipped) shows under All only.
var deliveryStates = []struct{ value, label string }{
	{"", "All"}, {callback.StatusFailed, "Failed"}, {callback.StatusPending, "Pending"}, {callback.StatusSucceeded, "Succeeded"},
}

// deliveryFilter is what the log's address asks for.
type deliveryFilter struct {
	State  string
	PageID string
	Offset int
}

// deliveryFilterOf reads the filter from the query; a value the log does not know
// is dropped (the screen shows everything rather than an error).
func deliveryFilterOf(q url.Values) deliveryFilter {
	var f deliveryFilter
	for _, st := range deliveryStates {
		if q.Get("state") == st.value {
			f.State = st.value
		}
	}
	if p := q.Get("page"); validID(p) {
		f.PageID = p
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 && n < 1_000_000_000 {
		f.Offset = n
	}
	return f
}

// validID tells whether s may be an id: 1–64 letters, digits, '_' or '-'.
func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (f deliveryFilter) query(offset int) url.Values {
	q := url.Values{}
	if f.State != "" {
		q.Set("state", f.State)
	}
	if f.PageID != "" {
		q.Set("page", f.PageID)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	return q
}

// deliveriesView is the log.
type deliveriesView struct {
	dashShell
	State, PageID string
	PageTitle     string // the filtered page's title
	StateLinks    []filterLink
	AllPages      string // the same state without the page filter
	Rows          []deliveryRow
	Total         int
	First, Last   int
	Newer, Older  string
	Filtered      bool
}

type deliveryRow struct {
	ID, Href, Event, Channel, Target, Status string
	PageID, PageHref, PageTitle              string
	Attempts                                 string // attemptsLabel
	NextAttemptAt                            *time.Time
	Waiting                                  bool
	CreatedAt                                time.Time
}

// deliveriesScreen is GET /deliveries (?state=, ?page=, ?offset=).
func (s *Site) deliveriesScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	f := deliveryFilterOf(r.URL.Query())
	var rows []*callback.Delivery
	var total int
	var err error
	if f.PageID != "" {
		rows, total, err = callback.ListTenantPage(s.c.Store, d.ws.ID, f.PageID, f.State, deliveriesPageSize, f.Offset)
	} else {
		rows, total, err = callback.ListTenant(s.c.Store, d.ws.ID, f.State, deliveriesPageSize, f.Offset)
	}
	if err != nil {
		return err
	}
	v := deliveriesView{dashShell: s.dashShell(d, "deliveries", "Deliveries"), State: f.State, PageID: f.PageID, Total: total,
		Filtered: f.State != "" || f.PageID != ""}
	for _, st := range deliveryStates {
		g := f
		g.State = st.value
		v.StateLinks = append(v.StateLinks, filterLink{Label: st.label, Href: d.link("/deliveries", g.query(0)), Current: st.value == f.State})
	}
	if f.PageID != "" {
		g := f
		g.PageID = ""
		v.AllPages = d.link("/deliveries", g.query(0))
	}
	titles := s.pageTitles(d.ws.ID)
	if f.PageID != "" {
		v.PageTitle = titles(f.PageID)
	}
	for _, dl := range rows {
		v.Rows = append(v.Rows, deliveryRow{ID: dl.ID, Href: d.link("/deliveries/"+url.PathEscape(dl.ID), nil), Event: dl.Event,
			Channel: dl.Channel, Target: callback.DisplayTarget(dl.Channel, dl.Target), Status: dl.Status,
			PageID: dl.PageID, PageTitle: titles(dl.PageID), PageHref: d.link("/deliveries", deliveryFilter{State: f.State, PageID: dl.PageID}.query(0)),
			Attempts: attemptsLabel(dl), NextAttemptAt: dl.NextAttemptAt, Waiting: dl.Waiting(),
			CreatedAt: dl.CreatedAt})
	}
	if len(rows) > 0 {
		v.First, v.Last = f.Offset+1, f.Offset+len(rows)
	}
	if f.Offset > 0 {
		v.Newer = d.link("/deliveries", f.query(max(0, f.Offset-deliveriesPageSize)))
	}
	if f.Offset+len(rows) < total {
		v.Older = d.link("/deliveries", f.query(f.Offset+deliveriesPageSize))
	}
	s.render(w, r, http.StatusOK, "deliveries", v)
	return nil
}

// pageTitles reads the titles of the tenant's pages from their inbox entries,
// each once per request (a screen names at most its rows' pages); a page whose
// entry is missing is named by its id.
func (s *Site) pageTitles(tenantID string) func(pageID string) string {
	seen := map[string]string{}
	return func(pageID string) string {
		if t, ok := seen[pageID]; ok {
			return t
		}
		t := pageID
		if e, err := inbox.Get(s.c.Store, tenantID, inbox.EntryID(pageID)); err == nil && e != nil && e.Title != "" {
			t = e.Title
		}
		seen[pageID] = t
		return t
	}
}

// deliveryView is one delivery.
type deliveryView struct {
	dashShell
	ID, Event, EventID, Channel, Target, Status, Note string
	PageID, PageTitle, PageHref, PageLog, Back        string
	AttemptsLabel                                     string
	NextAttemptAt, CompletedAt                        *time.Time
	CreatedAt                                         time.Time
	WaitingFor, WaitingHref                           string
	Reply                                             *callback.Reply
	Attempts                                          []attemptRow
	Body, RawBody                                     string // pretty-printed for reading; the exact bytes the signature covers
	Mail                                              *callback.Mail
	Headers                                           []headerLine
	HeadersOf                                         *attemptRow // the attempt whose headers are shown
	Retry                                             string      // where the retry form posts; "" when it cannot be retried
	RetryLabel                                        string
	CSRF                                              string
	Notice, Problem                                   string
}

type attemptRow struct {
	N          int
	At         time.Time
	When       string // At to the second: receivers log attempts by their timestamp
	HTTPStatus int
	Duration   string
	Error      string
	Manual     bool
	Failed     bool   // no 2xx (or, for a mail, not handed over)
	Headers    string // the address that shows this attempt's headers
	Shown      bool   // its headers are the ones shown
}

type headerLine struct{ Name, Value string }

// deliveryNotices are the messages a redirect to a delivery may ask for (?done=).
var deliveryNotices = map[string]string{
	"retried": "A new attempt was made: its outcome is below.",
	"queued":  "A new attempt is on its way. Reload this page in a moment to see its outcome.",
}

// deliveryScreen is GET /deliveries/:id (?attempt=N shows that attempt's headers).
func (s *Site) deliveryScreen(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	dl, err := s.delivery(d, ps.ByName("id"))
	if err != nil {
		return err
	}
	if dl == nil {
		s.notFound(w, r)
		return nil
	}
	v := s.deliveryOf(d, dl, r.URL.Query().Get("attempt"))
	v.Notice = deliveryNotices[r.URL.Query().Get("done")]
	s.render(w, r, http.StatusOK, "delivery", v)
	return nil
}

// delivery reads one of the workspace's deliveries: nil when it does not exist or
// belongs to another workspace (the same 404 for both).
func (s *Site) delivery(d *desk, id string) (*callback.Delivery, error) {
	if len(id) > 128 {
		return nil, nil
	}
	dl, err := callback.Load(s.c.Store, id)
	if err != nil || dl == nil || dl.TenantID != d.ws.ID {
		return nil, err
	}
	return dl, nil
}

func (s *Site) deliveryOf(d *desk, dl *callback.Delivery, attempt string) deliveryView {
	self := "/deliveries/" + url.PathEscape(dl.ID)
	v := deliveryView{dashShell: s.dashShell(d, "deliveries", dl.Event+" delivery"), ID: dl.ID, Event: dl.Event, EventID: dl.EventID,
		Channel: dl.Channel, Target: callback.DisplayTarget(dl.Channel, dl.Target), Status: dl.Status, Note: dl.Note,
		PageID: dl.PageID, PageTitle: s.pageTitles(d.ws.ID)(dl.PageID), PageHref: "/p/" + url.PathEscape(dl.PageID), PageLog: d.link("/deliveries", url.Values{"page": {dl.PageID}}),
		Back: d.link("/deliveries", nil), AttemptsLabel: attemptsLabel(dl), NextAttemptAt: dl.NextAttemptAt,
		CompletedAt: dl.CompletedAt, CreatedAt: dl.CreatedAt, Reply: dl.Reply, Mail: dl.Mail, CSRF: d.me.CSRF}
	if dl.Waiting() {
		v.WaitingFor, v.WaitingHref = dl.After, d.link("/deliveries/"+url.PathEscape(dl.After), nil)
	}
	if dl.Status != callback.StatusSkipped && !dl.Waiting() {
		v.Retry = d.link(self+"/retry", nil)
		v.RetryLabel = "Retry now"
		if dl.Status == callback.StatusSucceeded {
			v.RetryLabel = "Send again"
		}
	}
	shown, _ := strconv.Atoi(attempt)
	if len(dl.Attempts) > 0 && (shown < dl.Attempts[0].N || shown > dl.Attempts[len(dl.Attempts)-1].N) {
		shown = dl.Attempts[len(dl.Attempts)-1].N // the latest by default
	}
	for _, a := range dl.Attempts {
		failed := a.Error != "" || a.HTTPStatus < 200 || a.HTTPStatus > 299
		if dl.Channel == callback.ChannelEmail {
			failed = a.Error != ""
		}
		if a.Error == "HTTP "+strconv.Itoa(a.HTTPStatus) {
			a.Error = "" // the status says it all
		}
		row := attemptRow{N: a.N, At: a.At, When: a.At.UTC().Format("2 Jan 2006, 15:04:05 UTC"), HTTPStatus: a.HTTPStatus, Duration: duration(a.LatencyMS), Error: a.Error, Manual: a.Manual, Failed: failed,
			Headers: d.link(self, url.Values{"attempt": {strconv.Itoa(a.N)}}) + "#headers", Shown: a.N == shown}
		v.Attempts = append(v.Attempts, row)
	}
	for i := range v.Attempts {
		if v.Attempts[i].Shown && dl.Channel != callback.ChannelEmail { // a mail has no HTTP headers
			v.HeadersOf = &v.Attempts[i]
			v.Headers = headerLines(callback.ShownHeaders(dl, v.Attempts[i].At))
		}
	}
	if len(dl.Body) > 0 {
		v.RawBody = strings.ToValidUTF8(string(dl.Body), "\uFFFD")
		v.Body = v.RawBody
		var buf bytes.Buffer
		if json.Indent(&buf, dl.Body, "", "  ") == nil {
			v.Body = string(readable(buf.Bytes()))
		}
	}
	return v
}

// headerLines are h's headers one line each, in the order an HTTP client writes
// them (by name).
func headerLines(h http.Header) []headerLine {
	var out []headerLine
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, headerLine{Name: k, Value: v})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var htmlEscapes = map[string]byte{"003c": '<', "003e": '>', "0026": '&'}

// readable undoes the escapes of <, > and & that Go writes into JSON strings
// (\u003c, \u003e, \u0026), so a body reads as the text it carries. An escaped
// backslash is copied as the pair it is, so "\\u003c" stays as it was.
func readable(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			if c, ok := htmlEscapes[strings.ToLower(string(b[i+2:i+6]))]; ok {
				out = append(out, c)
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

// attemptsLabel counts a delivery's attempts against the automatic ones it gets
// ("2 of 6 attempts"); manual attempts come on top ("1 of 1 attempt, and 1 manual").
func attemptsLabel(d *callback.Delivery) string {
	manual := 0
	for _, a := range d.Attempts {
		if a.Manual {
			manual++
		}
	}
	auto := max(0, d.AttemptCount-manual)
	noun := " attempts"
	if d.MaxAttempts() == 1 {
		noun = " attempt"
	}
	s := strconv.Itoa(auto) + " of " + strconv.Itoa(d.MaxAttempts()) + noun
	if manual > 0 {
		s += ", and " + strconv.Itoa(manual) + " manual"
	}
	return s
}

// duration is an attempt's time, the way people read it.
func duration(ms float64) string {
	switch {
	case ms < 1:
		return "<1 ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
}

// retryWait bounds how long a retry waits for its attempt to be recorded before it
// answers, so the person sees the outcome rather than the state before it; an
// attempt that takes longer is still made, and the page says so.
const retryWait = 3 * time.Second

// retryDelivery is POST /deliveries/:id/retry: the API's manual retry
// (callback.Dispatcher.Retry, the same rule as POST /v1/deliveries/:id/retry).
// Success is 303 back to the delivery; 409 (an attempt in flight, or one waiting for
// an earlier delivery) shows the delivery with the reason.
func (s *Site) retryDelivery(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	d, ok := s.desk(w, r)
	if !ok || !s.csrfOK(w, r, d.cred) {
		return nil
	}
	before, err := s.delivery(d, ps.ByName("id"))
	if err != nil {
		return err
	}
	if before == nil {
		s.notFound(w, r)
		return nil
	}
	_, err = s.c.Deliveries.Retry(d.ws.ID, before.ID)
	var fe *fault.Error
	switch {
	case errors.As(err, &fe) && fe.Code == fault.NotFound:
		s.notFound(w, r)
		return nil
	case errors.As(err, &fe):
		v := s.deliveryOf(d, before, "")
		v.Problem = fe.Message
		s.render(w, r, status.Code(fe), "delivery", v)
		return nil
	case err != nil:
		return err
	}
	done := "queued"
	if s.attempted(r, before) {
		done = "retried"
	}
	http.Redirect(w, r, d.link("/deliveries/"+url.PathEscape(before.ID), url.Values{"done": {done}}), http.StatusSeeOther)
	return nil
}

// attempted waits (at most retryWait) until a new attempt of d is recorded.
func (s *Site) attempted(r *http.Request, d *callback.Delivery) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(retryWait)
	defer deadline.Stop()
	for {
		if cur, err := callback.Load(s.c.Store, d.ID); err == nil && cur != nil && cur.AttemptCount > d.AttemptCount {
			return true
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		case <-r.Context().Done():
			return false
		}
	}
}
