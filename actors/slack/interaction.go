package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
)

// A click on a button of a Folio message reaches POST
// /v1/integrations/slack/interactions. Nothing in it is believed before its
// signature is checked: the timestamp first (older than maxSkew: refused), then
// the signature with the signing secret of the tenant the button names. A request
// that fails either is refused (401) and changes nothing. A verified click is then
// answered 200 whatever happens, and the person hears in Slack: the message is
// updated in place when the decision is recorded, and an ephemeral message (only
// they see it) explains a refusal, which changes nothing.

// Service handles verified interactions.
type Service struct {
	API     *Client
	Pages   *registry.Registry
	PageURL func(id string) string
	Now     func() time.Time
	Log     *slog.Logger
	// Budget bounds the work of one click (Slack waits 3 s for the answer).
	Budget time.Duration
}

// payload is the part of a block_actions payload Folio reads.
type payload struct {
	Type string `json:"type"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
	Container struct {
		ChannelID string `json:"channel_id"`
		MessageTS string `json:"message_ts"`
	} `json:"container"`
	Channel struct {
		ID string `json:"id"`
	} `json:"channel"`
	Message struct {
		TS string `json:"ts"`
	} `json:"message"`
	ResponseURL string `json:"response_url"`
	Actions     []struct {
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
	} `json:"actions"`
}

// Handle verifies and carries out one interaction request (body is its raw bytes,
// bounded by the transport). It returns a *fault.Error for a request that is
// refused (401 unverified, 400 malformed) and nil once the click is verified.
func (s *Service) Handle(ctx context.Context, h http.Header, body []byte) error {
	tsHeader := h.Get("X-Slack-Request-Timestamp")
	if err := checkTimestamp(tsHeader, s.now()); err != nil {
		return err
	}
	sig := h.Get("X-Slack-Signature")
	if !strings.HasPrefix(sig, "v0=") {
		return refused("X-Slack-Signature is missing or not a v0 signature", "signature")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		return fault.New(fault.Invalid, "the body must be Slack's form with a payload field (application/x-www-form-urlencoded)",
			map[string]any{"field": "payload", "constraint": "required"})
	}
	var p payload
	if err := json.Unmarshal([]byte(form.Get("payload")), &p); err != nil {
		return fault.New(fault.Invalid, "payload is not JSON", map[string]any{"field": "payload", "constraint": "json"})
	}
	// The button names the tenant whose signing secret must verify the request;
	// only the row of that tenant's credentials is read before verification.
	v, ok := valueOf(&p)
	if !ok {
		return refused("this interaction is not a click on a Folio button: there is no signing secret to verify it with", "unknown_button")
	}
	set, err := Load(s.API.Store, v.TenantID)
	if err != nil {
		return err
	}
	if set == nil {
		return refused("no Slack app is set up for the tenant this button names (PUT /v1/integrations/slack)", "not_configured")
	}
	if err := verify(set.SigningSecret, tsHeader, sig, body); err != nil {
		return err
	}
	if v.ActionID != "" { // the "Open page" link button: nothing to decide
		s.decide(ctx, set, &p, v)
	}
	return nil
}

// valueOf is the Value of the clicked Folio button.
func valueOf(p *payload) (Value, bool) {
	var v Value
	if p.Type != "block_actions" || len(p.Actions) != 1 || !strings.HasPrefix(p.Actions[0].ActionID, "folio_") {
		return v, false
	}
	if json.Unmarshal([]byte(p.Actions[0].Value), &v) != nil || v.TenantID == "" || v.PageID == "" {
		return v, false
	}
	return v, true
}

// decide maps the Slack user to an address and asks the page to decide, through
// the same command as the review page (page.Act): the page checks state, access,
// assignee and version, and one click wins.
func (s *Service) decide(parent context.Context, set *Settings, p *payload, v Value) {
	budget := s.Budget
	if budget <= 0 {
		budget = 2500 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), budget)
	defer cancel()
	url := s.pageURL(v.PageID)
	say := func(text string) {
		msg := map[string]any{"response_type": "ephemeral", "replace_original": false, "text": text}
		if err := s.API.Respond(ctx, p.ResponseURL, msg); err != nil {
			s.log().Warn("slack: an ephemeral answer was not delivered", slog.String("page", v.PageID), slog.Any("err", err))
		}
	}
	u, err := s.API.UserInfo(ctx, set.BotToken, p.User.ID)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Code == "user_not_found" {
			say("Folio does not know your Slack account, so nothing was decided. Open the page to decide there: " + url)
			return
		}
		say("Folio could not ask Slack who you are (" + err.Error() + "), so nothing was decided. Click again in a moment, or open the page: " + url)
		return
	}
	email := strings.ToLower(strings.TrimSpace(u.Profile.Email))
	if u.Deleted || u.IsBot || email == "" {
		say("Slack did not give Folio an e-mail address for your account (the app needs the users:read.email scope), so nothing was decided. Open the page to decide there: " + url)
		return
	}
	// The page must be the tenant's whose secret verified the click.
	if _, err := registry.Call[*page.Result](ctx, s.Pages, v.PageID, &page.Get{Caller: page.Caller{TenantID: v.TenantID}}); err != nil {
		say("This page no longer exists, so nothing was decided.")
		return
	}
	version := v.Version
	res, err := registry.Call[*page.Result](ctx, s.Pages, v.PageID, &page.Act{
		Viewer: page.Viewer{Person: email, Method: page.AuthSlack}, ActionID: v.ActionID, Req: &page.ActionRequest{PageVersion: &version}})
	if err != nil {
		say(explain(err, email, url))
		return
	}
	s.update(ctx, set, p, res.Page)
}

// update redraws the message in place from the page as decided: every decision so
// far ("Approved by … at …"), and the buttons only while the page is still active.
// Only a message Folio has no record of posting (one posted before the record
// existed): the others are rewritten, durably, by the decision's own delivery.
func (s *Service) update(ctx context.Context, set *Settings, p *payload, pg *page.Page) {
	channel, ts := p.Container.ChannelID, p.Container.MessageTS
	if channel == "" {
		channel, ts = p.Channel.ID, p.Message.TS
	}
	if channel == "" || ts == "" || isPosted(s.API.Store, pg.ID, channel, ts) {
		return // a message recorded as posted is rewritten by the decision's delivery
	}
	var lines []string
	for _, e := range pg.Executions {
		lines = append(lines, DecidedLine(e))
	}
	body, err := UpdateMessage(channel, ts, PostOf(pg, s.pageURL(pg.ID), ""), lines, pg.Status == page.Active)
	if err == nil {
		_, err = s.API.Call(ctx, set.BotToken, "chat.update", body, nil)
	}
	if err != nil {
		s.log().Warn("slack: the decided message was not updated", slog.String("page", pg.ID), slog.Any("err", err))
	}
}

// DecidedLine is how a message states one recorded execution: "Approved by … at …".
func DecidedLine(e page.Execution) string {
	verb := "“" + Escape(e.Verdict.ActionLabel) + "” chosen"
	switch e.Decision {
	case page.DecisionApproved:
		verb = ":white_check_mark: *Approved*"
	case page.DecisionRejected:
		verb = ":x: *Rejected*"
	}
	return fmt.Sprintf("%s by %s at %s", verb, Escape(e.Actor), e.ExecutedAt.UTC().Format("2006-01-02 15:04 UTC"))
}

// explain is the ephemeral answer to a refused decision: what happened, that
// nothing changed, and what to do next.
func explain(err error, email, url string) string {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return "Folio could not record your decision just now, so nothing was decided. Click again in a moment, or open the page: " + url
	}
	switch {
	case fe.Details["reason"] == "page_changed":
		return "The page changed after this message was posted (" + fe.Message + "), so your click decided nothing. Open the page to review what changed and decide there: " + url
	case fe.Details["reason"] == "not_allowed":
		return "This page is shared with other people: " + email + " may not decide it, so nothing was decided. Ask the page's owner to add you."
	case fe.Details["reason"] == "verification_required":
		return "This page needs you to sign in to Folio to decide, so nothing was decided from Slack. Open the page: " + url
	case fe.Code == fault.Forbidden:
		return "You (" + email + ") may not decide this now: " + fe.Message + ". Nothing was decided."
	case fe.Code == fault.Conflict:
		return "Nothing was decided: " + fe.Message + ". Open the page to see where it stands: " + url
	case fe.Code == fault.NotFound:
		return "This page no longer exists, so nothing was decided."
	}
	return "Nothing was decided: " + fe.Message + ". Open the page: " + url
}

// PostOf is the message of a page (notice: a reminder's or escalation's line).
func PostOf(p *page.Page, pageURL, notice string) Post {
	post := Post{TenantID: p.TenantID, PageID: p.ID, Version: p.Version, Title: p.Title, Summary: p.Summary,
		Priority: p.Priority, PageURL: pageURL, Notice: notice}
	for _, a := range p.Actions {
		post.Buttons = append(post.Buttons, Button{ActionID: a.ActionID, Label: a.Label, Style: a.Style, Confirm: a.Confirm})
	}
	return post
}

func (s *Service) pageURL(id string) string {
	if s.PageURL == nil {
		return "/p/" + id
	}
	return s.PageURL(id)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}
