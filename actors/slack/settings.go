// Package slack is Folio's Slack app: notifications posted through the Web API
// (chat.postMessage, a Block Kit message with one button per action), the
// interactivity endpoint's rules (request signatures, mapping a Slack user to an
// e-mail address, deciding through the page actor's one decision command) and the
// per-tenant credentials they use. Each tenant is its own Slack workspace: its bot
// token and signing secret are set through PUT /v1/integrations/slack, stored in
// the tenant's row of the slack_settings bucket and never returned.
package slack

import (
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"folio/actors/model/fault"
	"folio/persistence"
)

// bucketSettings holds one row per tenant that set up Slack: tenantId -> Settings.
const bucketSettings = "slack_settings"

const schemaV1 = 1

// maxCredential bounds a bot token or signing secret (Slack's are under 100 bytes).
const maxCredential = 256

// Settings are a tenant's Slack credentials. They are secrets: nothing returns
// them, a view shows only that they are set and their last four characters.
type Settings struct {
	V             int       `json:"v"`
	TenantID      string    `json:"tenant_id"`
	BotToken      string    `json:"bot_token"`
	SigningSecret string    `json:"signing_secret"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// Credential is how a view shows a secret: set or not, and its last four characters.
type Credential struct {
	Set   bool   `json:"set"`
	Last4 string `json:"last4,omitempty"`
}

// View is what GET and PUT /v1/integrations/slack answer.
type View struct {
	Configured    bool       `json:"configured"`
	BotToken      Credential `json:"bot_token"`
	SigningSecret Credential `json:"signing_secret"`
	UpdatedAt     *time.Time `json:"updated_at"`
}

// ViewOf is s as a view (s may be nil: not configured).
func ViewOf(s *Settings) View {
	if s == nil {
		return View{}
	}
	at := s.UpdatedAt
	return View{Configured: true, BotToken: credential(s.BotToken), SigningSecret: credential(s.SigningSecret), UpdatedAt: &at}
}

func credential(s string) Credential {
	if s == "" {
		return Credential{}
	}
	r := []rune(s)
	return Credential{Set: true, Last4: string(r[max(0, len(r)-4):])}
}

// Request is the body of PUT /v1/integrations/slack.
type Request struct {
	BotToken      string `json:"bot_token"`
	SigningSecret string `json:"signing_secret"`
}

// Check validates a request: both credentials required, bounded, printable, and a
// bot token (xoxb-), not a user or app token.
func (r *Request) Check() error {
	for _, f := range []struct{ name, v string }{{"bot_token", r.BotToken}, {"signing_secret", r.SigningSecret}} {
		if strings.TrimSpace(f.v) == "" {
			return fault.Field(f.name, "required", "%s is required: copy it from your Slack app's settings (api.slack.com/apps)", f.name)
		}
		if len(f.v) > maxCredential {
			return fault.Limit(f.name, "max_length", maxCredential, "%s has at most %d characters", f.name, maxCredential)
		}
		if strings.IndexFunc(f.v, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 {
			return fault.Field(f.name, "format", "%s must not contain spaces or control characters", f.name)
		}
	}
	if !strings.HasPrefix(r.BotToken, "xoxb-") {
		return fault.Field("bot_token", "format", "bot_token must be a bot token (xoxb-…): copy the Bot User OAuth Token from your Slack app's OAuth & Permissions page")
	}
	return nil
}

// Save stores r as tenantID's credentials (replacing earlier ones) and returns them.
func Save(store *persistence.Store, tenantID string, r *Request, now time.Time) (*Settings, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	s := &Settings{V: schemaV1, TenantID: tenantID, BotToken: r.BotToken, SigningSecret: r.SigningSecret, UpdatedAt: now.UTC()}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if err := store.Update(func(tx *persistence.Tx) error { return tx.Put(bucketSettings, []byte(tenantID), b) }); err != nil {
		return nil, err
	}
	return s, nil
}

// Load reads tenantID's credentials; nil when the tenant has not set up Slack.
func Load(store *persistence.Store, tenantID string) (*Settings, error) {
	var s *Settings
	err := store.View(func(tx *persistence.Tx) error {
		b := tx.Get(bucketSettings, []byte(tenantID))
		if b == nil {
			return nil
		}
		s = &Settings{}
		return json.Unmarshal(b, s)
	})
	return s, err
}
