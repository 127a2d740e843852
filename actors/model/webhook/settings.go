package webhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/mail"
	"regexp"
	"sort"
	"strings"

	"folio/actors/model/fault"
)

// OnAction is the callback configuration of specification 6.2 as stored with the
// page (the request's JSON, validated at publish by checkOnAction).
type OnAction struct {
	DefaultURL string            `json:"default_url"`
	ActionURLs map[string]string `json:"action_urls"`
	HMACSecret string            `json:"hmac_secret"`
	Events     []string          `json:"events"`
	Headers    map[string]string `json:"headers"`
	Retry      *Retry            `json:"retry"`
}

// Retry is a custom retry policy: max_attempts counts every attempt,
// the n-th retry waits initial_delay_seconds * 2^(n-1) (exponential), * n (linear)
// or * 1 (fixed).
type Retry struct {
	MaxAttempts         *int     `json:"max_attempts"`
	Backoff             string   `json:"backoff"`
	InitialDelaySeconds *float64 `json:"initial_delay_seconds"`
}

// Notify is the page's notification configuration.
type Notify struct {
	Channels []Channel `json:"channels"`
}

// Channel is one notification channel: email (target an address), slack (target an
// incoming-webhook URL, or a channel id posted through the Web API) or webhook
// (target a URL; signed with secret, or with on_action.hmac_secret when secret is
// empty).
type Channel struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	Secret string `json:"secret,omitempty"`
}

// slackChannelRe is a Slack conversation id (C… public, G… private, D… direct
// message) or a user id (U…, W…: the app's direct message with them).
var slackChannelRe = regexp.MustCompile(`^[CGDUW][A-Z0-9]{6,20}$`)

// IsSlackChannelID tells a slack channel's target posted through the Web API (a
// channel id) from an incoming-webhook URL.
func IsSlackChannelID(target string) bool { return slackChannelRe.MatchString(target) }

// Channel types that are delivered; any other type is kept but draws a warning.
var ChannelTypes = map[string]bool{"email": true, "slack": true, "webhook": true}

// CallbackEvents are the event types of specification 6.2: what on_action delivers
// when its events filter is absent.
var CallbackEvents = []string{"action.executed", "approval.step_completed", "approval.chain_completed",
	"page.expired", "page.viewed", "form.submitted",
	// deadlines (docs/behaviour.md): only pages with a deadline emit them
	"approval.reminder_sent", "approval.escalated", "page.overdue"}

// knownEvents are every event type a page emits; an events filter may name any of them.
var knownEvents = map[string]bool{
	"action.executed": true, "approval.step_completed": true, "approval.chain_completed": true,
	"page.expired": true, "page.viewed": true, "form.submitted": true,
	"page.created": true, "page.published": true, "page.updated": true, "page.revoked": true,
	"page.renewed": true, "page.completed": true, "blocks.appended": true, "block.updated": true,
	"block.inserted": true, "blocks.reordered": true, "comment.added": true, "comment.updated": true,
	"comment.deleted": true, "file.uploaded": true, "file.deleted": true,
	"approval.reminder_sent": true, "approval.escalated": true, "page.overdue": true,
}

// Limits of the delivery configuration.
const (
	maxHeaders      = 20
	maxHeaderValue  = 1024
	maxSecret       = 256
	maxChannels     = 10
	maxRetryAttempt = 20
	maxInitialDelay = 86400.0
	minInitialDelay = 0.1
)

var headerNameRe = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_|~-]{1,64}$`)

// reservedHeader is a header the service sets itself on every delivery.
func reservedHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "content-type", "content-length", "host", "connection", "transfer-encoding", "user-agent",
		"te", "trailer", "upgrade", "expect", "proxy-authorization", "keep-alive":
		return true
	}
	return strings.HasPrefix(n, "x-service-") || strings.HasPrefix(n, "webhook-")
}

// ParseOnAction decodes stored on_action JSON (nil when absent).
func ParseOnAction(raw json.RawMessage) (*OnAction, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var oa OnAction
	if err := fault.DecodeJSON("on_action", raw, &oa); err != nil {
		return nil, err
	}
	return &oa, nil
}

// ParseNotify decodes stored notify JSON (nil when absent).
func ParseNotify(raw json.RawMessage) (*Notify, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var n Notify
	if err := fault.DecodeJSON("notify", raw, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// CheckOnAction validates on_action as a page request gives it: its addresses (no
// name is resolved: publishing never waits on DNS), secret, events, headers and
// retry policy. actionIDs are the page's actions (action_urls naming another draw a
// warning). It returns advisory warnings.
func CheckOnAction(raw json.RawMessage, actionIDs []string, allowPrivate bool) ([]string, error) {
	oa, err := ParseOnAction(raw)
	if err != nil {
		return nil, err
	}
	var warnings []string
	target := func(field, u string) error {
		_, warn, err := checkTarget(u)
		if err != nil {
			return fault.Field(field, "url", "%s %v", field, err)
		}
		if warn != "" && !allowPrivate {
			warnings = append(warnings, field+": "+warn+" (start the server with --allow-private-callbacks to allow it)")
		}
		return nil
	}
	if oa.DefaultURL != "" {
		if err := target("on_action.default_url", oa.DefaultURL); err != nil {
			return nil, err
		}
	}
	if len(oa.ActionURLs) > 50 {
		return nil, fault.Limit("on_action.action_urls", "max_items", 50, "on_action.action_urls has at most 50 entries")
	}
	known := map[string]bool{}
	for _, id := range actionIDs {
		known[id] = true
	}
	for _, id := range sortedKeys(oa.ActionURLs) {
		field := "on_action.action_urls." + id
		if err := target(field, oa.ActionURLs[id]); err != nil {
			return nil, err
		}
		if !known[id] {
			warnings = append(warnings, fmt.Sprintf("%s: the page has no action %q; this address is never used", field, id))
		}
	}
	if oa.DefaultURL == "" && len(oa.ActionURLs) == 0 {
		warnings = append(warnings, "on_action: neither default_url nor action_urls is set; no callback will be sent")
	}
	if len(oa.HMACSecret) > maxSecret {
		return nil, fault.Limit("on_action.hmac_secret", "max_length", maxSecret, "on_action.hmac_secret has at most %d characters", maxSecret)
	}
	if w := secretWarning("on_action.hmac_secret", oa.HMACSecret); w != "" {
		warnings = append(warnings, w)
	}
	if len(oa.Events) > len(knownEvents) {
		return nil, fault.Limit("on_action.events", "max_items", len(knownEvents), "on_action.events names at most %d event types", len(knownEvents))
	}
	for i, ev := range oa.Events {
		if !knownEvents[ev] {
			warnings = append(warnings, fmt.Sprintf("on_action.events[%d]: %q is not an event type; it never matches (callback events: %s)", i, ev, strings.Join(CallbackEvents, ", ")))
		}
	}
	if len(oa.Headers) > maxHeaders {
		return nil, fault.Limit("on_action.headers", "max_items", maxHeaders, "on_action.headers has at most %d headers", maxHeaders)
	}
	for _, name := range sortedKeys(oa.Headers) {
		field := "on_action.headers." + name
		if !headerNameRe.MatchString(name) {
			return nil, fault.Field(field, "format", "%q is not a valid header name", name)
		}
		if reservedHeader(name) {
			return nil, fault.Field(field, "reserved", "%s is set by the service and cannot be overridden", name)
		}
		v := oa.Headers[name]
		if len(v) > maxHeaderValue {
			return nil, fault.Limit(field, "max_length", maxHeaderValue, "%s has at most %d characters", field, maxHeaderValue)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fault.Field(field, "format", "%s must not contain line breaks", field)
		}
	}
	if r := oa.Retry; r != nil {
		if r.MaxAttempts != nil && (*r.MaxAttempts < 1 || *r.MaxAttempts > maxRetryAttempt) {
			e := fault.Limit("on_action.retry.max_attempts", "range", maxRetryAttempt, "on_action.retry.max_attempts must be between 1 and %d", maxRetryAttempt)
			e.Details["minimum"] = 1
			return nil, e
		}
		switch r.Backoff {
		case "", "exponential", "fixed", "linear":
		default:
			e := fault.Field("on_action.retry.backoff", "enum", "on_action.retry.backoff must be exponential, linear or fixed")
			e.Details["allowed"] = []string{"exponential", "linear", "fixed"}
			return nil, e
		}
		if d := r.InitialDelaySeconds; d != nil && (*d < minInitialDelay || *d > maxInitialDelay) {
			e := fault.Field("on_action.retry.initial_delay_seconds", "range", "on_action.retry.initial_delay_seconds must be between %g and %g", minInitialDelay, maxInitialDelay)
			e.Details["minimum"], e.Details["maximum"] = minInitialDelay, maxInitialDelay
			return nil, e
		}
	}
	return warnings, nil
}

// secretWarning: any string is a valid secret (the specification's
// X-Service-Signature keys HMAC with its bytes). One that looks like the Standard
// Webhooks form whsec_<base64> but does not decode draws a warning, because its
// webhook-signature is then keyed with the string's own bytes, not decoded ones.
func secretWarning(field, s string) string {
	rest, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return ""
	}
	if _, err := base64.StdEncoding.DecodeString(rest); err != nil {
		return field + ": starts with whsec_ but the rest is not base64; webhook-signature is keyed with the whole string's bytes, X-Service-Signature as always"
	}
	return ""
}

// CheckNotify validates notify as a page request gives it and returns advisory
// warnings.
func CheckNotify(raw json.RawMessage, allowPrivate bool) ([]string, error) {
	n, err := ParseNotify(raw)
	if err != nil {
		return nil, err
	}
	if len(n.Channels) > maxChannels {
		return nil, fault.Limit("notify.channels", "max_items", maxChannels, "notify.channels has at most %d channels", maxChannels)
	}
	var warnings []string
	for i, c := range n.Channels {
		at := fmt.Sprintf("notify.channels[%d]", i)
		if c.Type == "" {
			return nil, fault.Field(at+".type", "required", "%s.type is required", at)
		}
		if !ChannelTypes[c.Type] {
			warnings = append(warnings, fmt.Sprintf("%s.type: %q is not a channel type; use email, slack or webhook (this channel is ignored)", at, c.Type))
			continue
		}
		if strings.TrimSpace(c.Target) == "" {
			return nil, fault.Field(at+".target", "required", "%s.target is required", at)
		}
		if len(c.Secret) > maxSecret {
			return nil, fault.Limit(at+".secret", "max_length", maxSecret, "%s.secret has at most %d characters", at, maxSecret)
		}
		if w := secretWarning(at+".secret", c.Secret); w != "" {
			warnings = append(warnings, w)
		}
		switch c.Type {
		case "email":
			a, err := mail.ParseAddress(c.Target)
			if err != nil || a.Address != c.Target || len(c.Target) > 320 {
				return nil, fault.Field(at+".target", "email", "%s.target must be a plain e-mail address", at)
			}
		case "slack":
			if slackChannelRe.MatchString(c.Target) {
				break // a channel id: posted through the Web API with the tenant's bot token
			}
			if !strings.HasPrefix(c.Target, "http://") && !strings.HasPrefix(c.Target, "https://") {
				return nil, fault.Field(at+".target", "slack_target", "%s.target must be a Slack channel id (C…, G…, D…, or a user id U…/W… for a direct message; posted with the bot token set by PUT /v1/integrations/slack) or an incoming-webhook URL (https://hooks.slack.com/…)", at)
			}
			fallthrough
		default:
			_, warn, err := checkTarget(c.Target)
			if err != nil {
				return nil, fault.Field(at+".target", "url", "%s.target %v", at, err)
			}
			if warn != "" && !allowPrivate {
				warnings = append(warnings, at+".target: "+warn+" (start the server with --allow-private-callbacks to allow it)")
			}
		}
	}
	return warnings, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
