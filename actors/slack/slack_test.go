package slack

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/actors/model/fault"
)

// Slack's documented example ("Verifying requests from Slack"): this secret,
// timestamp and body give this signature.
func TestSignMatchesSlacksDocumentedExample(t *testing.T) {
	body := "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	got := Sign("8f742231b10e8888abcd99yyyzzz85a5", 1531420618, []byte(body))
	if want := "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestTimestampOutsideFiveMinutesIsRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		header string
		ok     bool
	}{
		{strconv.FormatInt(now.Unix(), 10), true},
		{strconv.FormatInt(now.Add(-299*time.Second).Unix(), 10), true},
		{strconv.FormatInt(now.Add(-301*time.Second).Unix(), 10), false},
		{strconv.FormatInt(now.Add(6*time.Minute).Unix(), 10), false},
		{"", false},
		{"yesterday", false},
	} {
		err := checkTimestamp(c.header, now)
		if (err == nil) != c.ok {
			t.Errorf("timestamp %q: err %v, want ok=%v", c.header, err, c.ok)
		}
		if fe, _ := err.(*fault.Error); err != nil && (fe == nil || fe.Code != fault.Unauthorized) {
			t.Errorf("timestamp %q: %v, want 401", c.header, err)
		}
	}
}

func TestCredentialsAreCheckedAndNeverShown(t *testing.T) {
	for _, r := range []Request{
		{SigningSecret: "s"},
		{BotToken: "xoxb-1", SigningSecret: ""},
		{BotToken: "xoxp-user-token", SigningSecret: "s"},
		{BotToken: "xoxb-a b", SigningSecret: "s"},
		{BotToken: "xoxb-" + strings.Repeat("x", 300), SigningSecret: "s"},
	} {
		if err := r.Check(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	raw, _ := json.Marshal(ViewOf(&Settings{BotToken: "xoxb-secret-1234", SigningSecret: "shh-abcd"}))
	if strings.Contains(string(raw), "secret-") || strings.Contains(string(raw), "shh") || !strings.Contains(string(raw), `"last4":"1234"`) {
		t.Errorf("view = %s", raw)
	}
}

func TestMessageKeepsSlacksLimits(t *testing.T) {
	p := Post{TenantID: "ten_1", PageID: "pg_1", Version: 3, Title: strings.Repeat("T", 400), Summary: "a < b & c",
		Priority: "high", PageURL: "https://folio.example/p/pg_1"}
	for i := range 30 {
		p.Buttons = append(p.Buttons, Button{ActionID: "a" + strconv.Itoa(i), Label: strings.Repeat("L", 100)})
	}
	raw, err := PostMessage("C0123456", p)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Blocks []struct {
			Type     string            `json:"type"`
			Text     map[string]any    `json:"text"`
			Elements []json.RawMessage `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	buttons := 0
	for _, b := range m.Blocks {
		switch b.Type {
		case "header":
			if n := len([]rune(b.Text["text"].(string))); n > maxHeader {
				t.Errorf("header of %d characters", n)
			}
		case "section":
			if s := b.Text["text"].(string); strings.Contains(s, "<") && !strings.Contains(s, "&lt;") {
				t.Errorf("summary not escaped: %q", s)
			}
		case "actions":
			if len(b.Elements) > maxActionsElem {
				t.Errorf("an actions block of %d elements", len(b.Elements))
			}
			buttons += len(b.Elements)
		}
	}
	if buttons != 31 {
		t.Errorf("%d buttons, want 30 actions and Open page", buttons)
	}
}

func TestUnverifiedRequestsAreRefusedBeforeAnythingIsRead(t *testing.T) {
	s := &Service{API: &Client{}, Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", "1799999000") // 1000 s old
	h.Set("X-Slack-Signature", "v0=00")
	// No store is configured: reaching it would panic, so a refusal proves the
	// old timestamp was refused first.
	if err := s.Handle(t.Context(), h, []byte("payload=%7B%7D")); err == nil || err.(*fault.Error).Details["reason"] != "timestamp" {
		t.Errorf("an old request: %v", err)
	}
}
