package callback

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"folio/actors/model/blocks"
	"folio/actors/model/jsonlimit"
	"folio/actors/model/webhook"
	"folio/actors/page"
	"folio/actors/slack"
	"folio/persistence"
)

// maxReplyBytes caps the reply body read for instructions; a longer reply is
// accepted (2xx is success) but its instructions are ignored.
const maxReplyBytes = 256 << 10

// outcome is what one attempt found.
type outcome struct {
	ok         bool
	permanent  bool // no further automatic attempts (410, refused target, bad URL)
	status     int
	latencyMS  float64
	err        string
	retryAfter *time.Duration
	reply      []blocks.Block
	note       string
	posted     *slack.Posted // where a chat.postMessage put its message (slack.go)
}

// newClient is the HTTP client of deliveries: the guard's dialer, no proxy (a proxy
// would dial for us, past the guard), redirects not followed (a 3xx is a failure).
func newClient(cfg Config) *http.Client {
	dialer := &webhook.Dialer{AllowPrivate: cfg.AllowPrivate, Resolver: cfg.Resolver, Timeout: cfg.Timeout}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   cfg.PerLane,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// attempt sends delivery id once and records the attempt; it returns when the next
// attempt is due (nil when none, or when the node is shutting down: the row is then
// left as it was and resumes after the next start).
func (d *Dispatcher) attempt(id string, manual bool) *time.Time {
	rec, err := Load(d.cfg.Store, id)
	if err != nil || rec == nil || rec.Status == StatusSkipped || (!manual && rec.Status != StatusPending) || rec.Waiting() {
		return nil
	}
	if d.node != "" {
		if later, ok := d.lease(rec, manual); !ok {
			return later
		}
	}
	at := d.cfg.Clock.Now()
	out := d.send(rec, at)
	if d.ctx.Err() != nil {
		if d.node != "" { // shutting down: another node may send it at once
			d.letGo(id)
		}
		return nil
	}
	finished := d.cfg.Clock.Now()
	var next *time.Time
	var saved, released *Delivery
	var last Attempt
	err = d.cfg.Store.Update(func(tx *persistence.Tx) error {
		cur, err := get(tx, id)
		if err != nil || cur == nil {
			return err
		}
		prevDue, wasPending := cur.NextAttemptAt, cur.Status == StatusPending
		last = record(cur, out, at, finished, manual)
		if d.node != "" {
			if err := release(tx, id); err != nil {
				return err
			}
		}
		if err := put(tx, cur, prevDue, false); err != nil {
			return err
		}
		if out.ok && out.posted != nil {
			if err := slack.PutPosted(tx, cur.PageID, *out.posted); err != nil {
				return err
			}
		}
		released = nil
		if wasPending && cur.Status != StatusPending {
			if released, err = releaseNext(tx, cur, finished); err != nil {
				return err
			}
		}
		if cur.Reply != nil && cur.Reply.Status == "pending" {
			if err := tx.Put(bucketReplies, []byte(id), nil); err != nil {
				return err
			}
		}
		next, saved = nil, cur
		if cur.Status == StatusPending {
			next = cur.NextAttemptAt
		}
		return nil
	})
	if err != nil {
		d.cfg.Log.Error("callback: recording an attempt failed", slog.String("delivery", id), slog.Any("err", err))
		t := finished.Add(time.Minute)
		return &t
	}
	if saved == nil {
		return nil
	}
	if released != nil {
		d.Enqueue([]Item{{ID: released.ID, Lane: released.Lane, Due: *released.NextAttemptAt}})
	}
	if d.cfg.Observe != nil {
		d.cfg.Observe(saved, last)
	}
	if saved.Reply != nil && saved.Reply.Status == "pending" && out.reply != nil {
		d.applyReply(saved)
	}
	return next
}

// lease claims rec's lease before an attempt on a shared store (lease.go); when it
// cannot, it returns when to look again (nil: never).
func (d *Dispatcher) lease(rec *Delivery, manual bool) (*time.Time, bool) {
	held, later, err := claim(d.cfg.Store, rec.ID, d.node, manual, d.cfg.Clock.Now, d.leaseFor())
	if err != nil {
		now := d.cfg.Clock.Now()
		d.cfg.Log.Error("callback: claiming a delivery failed", slog.String("delivery", rec.ID), slog.Any("err", err))
		t := now.Add(d.cfg.Sweep)
		return &t, false
	}
	return later, held
}

// record applies an attempt's outcome to d and returns the attempt.
func record(d *Delivery, out outcome, at, finished time.Time, manual bool) Attempt {
	n := d.AttemptCount + 1
	a := Attempt{N: n, At: at, HTTPStatus: out.status, LatencyMS: out.latencyMS, Error: out.err, Manual: manual}
	wasFinal := d.Status != StatusPending
	d.AttemptCount, d.NextAttemptAt, d.Note = n, nil, out.note
	done := func(status string) {
		t := finished
		d.Status, d.CompletedAt = status, &t
	}
	switch {
	case out.ok:
		done(StatusSucceeded)
	case out.permanent:
		done(StatusFailed)
	case manual && wasFinal: // a manual redelivery of a finished delivery is one attempt
		done(StatusFailed)
	case n >= d.MaxAttempts():
		done(StatusFailed)
		if d.Note == "" {
			d.Note = fmt.Sprintf("gave up after %d attempts", n)
		}
	default:
		wait := time.Duration(d.DelaysMS[n-1]) * time.Millisecond
		if out.retryAfter != nil {
			wait = *out.retryAfter
		}
		t := finished.Add(wait)
		d.Status, d.NextAttemptAt, d.CompletedAt = StatusPending, &t, nil
		a.NextAttemptAt = &t
	}
	if out.reply != nil {
		d.Reply = &Reply{Blocks: out.reply, Status: "pending"}
	}
	d.Attempts = append(d.Attempts, a)
	if len(d.Attempts) > keptAttempt {
		d.Attempts = append([]Attempt(nil), d.Attempts[len(d.Attempts)-keptAttempt:]...)
	}
	return a
}

// send makes one attempt, bounded by the attempt timeout.
func (d *Dispatcher) send(rec *Delivery, at time.Time) outcome {
	ctx, cancel := context.WithTimeout(d.ctx, d.cfg.Timeout)
	defer cancel()
	start := time.Now()
	ms := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
	if rec.Channel == ChannelEmail {
		if d.cfg.Mailer == nil || rec.Mail == nil {
			return outcome{permanent: true, err: "no mailer configured"}
		}
		m := rec.Mail
		if rec.Links != nil {
			linkURL, pageURL := d.cfg.LinkURL, "/p/"+rec.PageID
			if linkURL == nil {
				linkURL = func(t string) string { return "/a/" + t }
			}
			if d.cfg.PageURL != nil {
				pageURL = d.cfg.PageURL(rec.PageID)
			}
			var err error
			if m, err = mintLinks(d.cfg.Store, rec, linkURL, pageURL, at); err != nil {
				return outcome{latencyMS: ms(), err: "decision links not stored: " + d.describe(ctx, err)}
			}
		}
		if err := d.cfg.Mailer.Send(ctx, m, rec.ID, at); err != nil {
			return outcome{latencyMS: ms(), err: d.describe(ctx, err)}
		}
		return outcome{ok: true, latencyMS: ms()}
	}
	if rec.Channel == ChannelSlack && rec.SlackUpdate {
		return d.sendSlackUpdate(ctx, rec, ms)
	}
	if rec.Channel == ChannelSlack && slack.IsChannelID(rec.Target) {
		return d.sendSlackAPI(ctx, rec, ms)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.Target, bytes.NewReader(rec.Body))
	if err != nil {
		return outcome{permanent: true, err: "invalid target: " + err.Error()}
	}
	setHeaders(req.Header, rec, at)
	res, err := d.client.Do(req)
	if err != nil {
		var refused *webhook.RefusedError
		if errors.As(err, &refused) {
			return outcome{permanent: true, latencyMS: ms(), err: refused.Error()}
		}
		return outcome{latencyMS: ms(), err: d.describe(ctx, err)}
	}
	defer res.Body.Close()
	out := outcome{status: res.StatusCode}
	switch c := res.StatusCode; {
	case c >= 200 && c < 300:
		out.ok = true
		if rec.Channel == ChannelCallback {
			out.reply, out.note = readReply(res.Body)
		}
	case c == http.StatusGone:
		out.permanent, out.err = true, "410 Gone: the receiver asked to stop; no more retries"
	case c >= 300 && c < 400:
		out.err = fmt.Sprintf("HTTP %d: redirects are not followed (Location: %s)", c, clip(res.Header.Get("Location"), 200))
	case c == http.StatusTooManyRequests || c == http.StatusServiceUnavailable:
		out.err = fmt.Sprintf("HTTP %d", c)
		if wait, ok := retryAfter(res.Header.Get("Retry-After"), d.cfg.Clock.Now()); ok {
			out.retryAfter = &wait
			out.err += fmt.Sprintf(" (Retry-After %s honoured)", wait)
		}
	default:
		out.err = fmt.Sprintf("HTTP %d", c)
		if excerpt := readExcerpt(res.Body); excerpt != "" {
			out.err += ": " + excerpt
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // let the connection be reused
	out.latencyMS = ms()
	return out
}

// describe turns a transport error into the attempt's error text.
func (d *Dispatcher) describe(ctx context.Context, err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && d.ctx.Err() == nil:
		return fmt.Sprintf("timed out after %s", d.cfg.Timeout)
	case errors.As(err, &dns):
		return "name resolution failed: " + dns.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return clip(err.Error(), 300)
}

func readExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 300))
	return strings.TrimSpace(clip(strings.ToValidUTF8(string(b), ""), 200))
}

// readReply reads a 2xx reply (at most maxReplyBytes) and returns the blocks its
// instructions add, if any.
func readReply(r io.Reader) ([]blocks.Block, string) {
	b, err := io.ReadAll(io.LimitReader(r, maxReplyBytes+1))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return nil, ""
	}
	if len(b) > maxReplyBytes {
		return nil, fmt.Sprintf("the reply is larger than %d bytes; its instructions were ignored", maxReplyBytes)
	}
	if d := jsonlimit.Check(b, jsonlimit.MaxDepth); d != nil {
		return nil, fmt.Sprintf("the reply nests deeper than %d levels at %s; its instructions were ignored", d.Limit, d.Path)
	}
	var reply struct {
		Instructions *struct {
			UpdatePage *struct {
				AddBlocks []blocks.Block `json:"add_blocks"`
			} `json:"update_page"`
		} `json:"instructions"`
	}
	if json.Unmarshal(b, &reply) != nil {
		return nil, "" // the body is optional and need not be JSON
	}
	if reply.Instructions == nil || reply.Instructions.UpdatePage == nil || len(reply.Instructions.UpdatePage.AddBlocks) == 0 {
		return nil, ""
	}
	return reply.Instructions.UpdatePage.AddBlocks, ""
}

// applyReply asks the page to append the reply's blocks (once per event id, the page
// keeps track) and records the result. Until that is recorded the delivery stays in
// the replies bucket, so a crash in between re-sends the instructions at start.
func (d *Dispatcher) applyReply(rec *Delivery) {
	if d.cfg.Pages == nil || rec.Reply == nil {
		return
	}
	res, err := d.cfg.Pages.Ask(context.Background(), rec.PageID, &page.ApplyReply{Caller: page.Caller{TenantID: rec.TenantID, Agent: "system"}, EventID: rec.EventID, Blocks: rec.Reply.Blocks})
	if err != nil {
		d.cfg.Log.Warn("callback: reply instructions not applied yet", slog.String("delivery", rec.ID), slog.Any("err", err))
		return
	}
	status, errText, ids := "applied", "", []string(nil)
	switch r := res.(type) {
	case *page.ReplyApplied:
		if r.Duplicate {
			status = "duplicate"
		}
		ids = r.BlockIDs
	case error:
		status, errText = "refused", r.Error()
	}
	err = d.cfg.Store.Update(func(tx *persistence.Tx) error {
		cur, err := get(tx, rec.ID)
		if err != nil || cur == nil {
			return err
		}
		if cur.Reply != nil {
			cur.Reply.Status, cur.Reply.Error, cur.Reply.BlockIDs = status, errText, ids
		}
		b, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		if err := tx.Put(bucketDeliveries, []byte(cur.ID), b); err != nil {
			return err
		}
		return tx.Delete(bucketReplies, []byte(cur.ID))
	})
	if err != nil {
		d.cfg.Log.Error("callback: recording applied instructions failed", slog.String("delivery", rec.ID), slog.Any("err", err))
	}
}
