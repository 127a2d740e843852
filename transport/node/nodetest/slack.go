package nodetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/actors/slack"
)

// Slack is a fake Slack on 127.0.0.1 (closed by t.Cleanup): the Web API methods
// Folio calls (chat.postMessage, chat.update, users.info under /api/, each
// checking the bot token as Slack does and answering {"ok":…}) and the
// response_url of interactions (/response/…). It keeps every call; a node points
// at it with Config.SlackAPIURL = APIURL().
type Slack struct {
	srv   *httptest.Server
	token string

	mu    sync.Mutex
	users map[string]string // Slack user id -> e-mail address
	calls []SlackCall       // in arrival order; only ever appended to
	more  chan struct{}     // closed (and replaced) whenever calls grows
	ts    int
	fail  map[string][]string // method -> the error codes its next calls answer
}

// SlackCall is one request the fake Slack answered.
type SlackCall struct {
	Method string         // chat.postMessage, chat.update, users.info, or response_url
	Auth   string         // the Authorization header
	Body   map[string]any // the JSON body (write methods, response_url)
	Form   url.Values     // the form body (users.info)
	TS     string         // the message's ts: given to a chat.postMessage, named by a chat.update
}

// StartSlack starts a fake Slack whose workspace accepts the bot token token.
func StartSlack(t testing.TB, token string) *Slack {
	t.Helper()
	f := &Slack{token: token, users: map[string]string{}, more: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// APIURL is the base URL of the fake Web API (--slack-api-url).
func (f *Slack) APIURL() string { return f.srv.URL + "/api" }

// ResponseURL is an interaction's response_url on the fake Slack.
func (f *Slack) ResponseURL(name string) string { return f.srv.URL + "/response/" + name }

// Fail makes the next len(codes) calls of method answer {"ok":false,"error":code},
// one code per call, as Slack does when it fails a request.
func (f *Slack) Fail(method string, codes ...string) {
	f.mu.Lock()
	if f.fail == nil {
		f.fail = map[string][]string{}
	}
	f.fail[method] = append(f.fail[method], codes...)
	f.mu.Unlock()
}

// AddUser makes a member of the workspace with an e-mail address.
func (f *Slack) AddUser(id, email string) {
	f.mu.Lock()
	f.users[id] = email
	f.mu.Unlock()
}

func (f *Slack) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	call := SlackCall{Auth: r.Header.Get("Authorization")}
	answer := map[string]any{"ok": true}
	if name, ok := strings.CutPrefix(r.URL.Path, "/response/"); ok {
		call.Method = "response_url"
		_ = json.Unmarshal(raw, &call.Body)
		call.Body["_name"] = name
		f.record(call)
		w.WriteHeader(http.StatusOK)
		return
	}
	call.Method = strings.TrimPrefix(r.URL.Path, "/api/")
	if call.Auth != "Bearer "+f.token {
		answer = map[string]any{"ok": false, "error": "invalid_auth"}
	}
	f.mu.Lock()
	if codes := f.fail[call.Method]; len(codes) > 0 && answer["ok"] == true {
		answer, f.fail[call.Method] = map[string]any{"ok": false, "error": codes[0]}, codes[1:]
	}
	switch call.Method {
	case "chat.postMessage", "chat.update":
		_ = json.Unmarshal(raw, &call.Body)
		if call.Method == "chat.postMessage" {
			f.ts++
			call.TS = fmt.Sprintf("1700000000.%06d", f.ts)
			answer["ts"], answer["channel"] = call.TS, call.Body["channel"]
		} else {
			call.TS, _ = call.Body["ts"].(string) // the message it replaced
		}
	case "users.info":
		call.Form, _ = url.ParseQuery(string(raw))
		id := call.Form.Get("user")
		if email, known := f.users[id]; known {
			answer["user"] = map[string]any{"id": id, "deleted": false, "is_bot": false, "profile": map[string]any{"email": email}}
		} else if answer["ok"] == true {
			answer = map[string]any{"ok": false, "error": "user_not_found"}
		}
	default:
		answer = map[string]any{"ok": false, "error": "unknown_method"}
	}
	f.mu.Unlock()
	f.record(call)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

func (f *Slack) record(c SlackCall) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	close(f.more)
	f.more = make(chan struct{})
	f.mu.Unlock()
}

// Calls are the calls of method so far.
func (f *Slack) Calls(method string) []SlackCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []SlackCall
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Wait waits until method has been called n times and returns those calls.
func (f *Slack) Wait(t testing.TB, method string, n int, within time.Duration) []SlackCall {
	t.Helper()
	deadline := time.After(within)
	for {
		f.mu.Lock()
		more := f.more
		f.mu.Unlock()
		if c := f.Calls(method); len(c) >= n {
			return c
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("fake Slack: %s called %d times within %s, want %d", method, len(f.Calls(method)), within, n)
		}
	}
}

// Buttons are the buttons of a posted or updated message, by their label.
func (c SlackCall) Buttons() map[string]map[string]any {
	out := map[string]map[string]any{}
	blocks, _ := c.Body["blocks"].([]any)
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		if bm["type"] != "actions" {
			continue
		}
		for _, el := range bm["elements"].([]any) {
			e := el.(map[string]any)
			text, _ := e["text"].(map[string]any)
			label, _ := text["text"].(string)
			out[label] = e
		}
	}
	return out
}

// Text is every text of the message's blocks, joined by newlines.
func (c SlackCall) Text() string {
	var b strings.Builder
	blocks, _ := c.Body["blocks"].([]any)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				b.WriteString(s + "\n")
			}
			for k, y := range x {
				if k != "text" || !isString(y) {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(blocks)
	return b.String()
}

func isString(v any) bool { _, ok := v.(string); return ok }

// Click is the signed interaction request Slack sends when user clicks button on
// the message msg posted (its channel and ts), answered through responseURL; at
// is the request's timestamp and secret the app's signing secret.
func Click(secret string, at time.Time, user string, msg SlackCall, button map[string]any, responseURL string) (body []byte, header http.Header) {
	payload := map[string]any{
		"type": "block_actions", "user": map[string]any{"id": user}, "team": map[string]any{"id": "T0FOLIO"},
		"container":    map[string]any{"type": "message", "channel_id": msg.Body["channel"], "message_ts": msg.TS},
		"channel":      map[string]any{"id": msg.Body["channel"]},
		"message":      map[string]any{"ts": msg.TS},
		"response_url": responseURL,
		"actions":      []any{map[string]any{"type": "button", "action_id": button["action_id"], "value": button["value"], "action_ts": "1700000001.000001"}},
	}
	raw, _ := json.Marshal(payload)
	body = []byte(url.Values{"payload": {string(raw)}}.Encode())
	ts := at.Unix()
	header = http.Header{}
	header.Set("Content-Type", "application/x-www-form-urlencoded")
	header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
	header.Set("X-Slack-Signature", slack.Sign(secret, ts, body))
	return body, header
}
