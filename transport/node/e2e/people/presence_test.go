package people_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/actors/page"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// presenceEvery is the presence period these tests run with (production: 1 s).
const presenceEvery = 200 * time.Millisecond

func fastPresence(c *node.Config) { c.PresenceEvery = presenceEvery }

// presenceOf parses a `presence` frame's data line.
func presenceOf(t testing.TB, line string) page.PresenceData {
	t.Helper()
	var f struct {
		Type string            `json:"type"`
		Data page.PresenceData `json:"data"`
	}
	if err := json.Unmarshal([]byte(line), &f); err != nil || f.Type != "presence" {
		t.Fatalf("not a presence frame: %s (%v)", line, err)
	}
	return f.Data
}

// presenceUntil reads presence frames until one says want (frames are coalesced:
// states in between may be skipped) and returns how many it read.
func (s *stream) presenceUntil(t testing.TB, want page.PresenceData) int {
	t.Helper()
	deadline := time.After(10 * time.Second)
	n, last := 0, ""
	for {
		select {
		case d := <-s.data:
			if !strings.Contains(d, `"type":"presence"`) {
				continue
			}
			n++
			last = d
			if got := presenceOf(t, d); reflect.DeepEqual(got, want) {
				return n
			}
		case <-s.done:
			t.Fatalf("the stream ended before presence %+v (last %s)", want, last)
		case <-deadline:
			t.Fatalf("no presence %+v within 10s (last %s)", want, last)
		}
	}
}

// TestPresenceFollowsWhoHasThePageOpen: a page stream opened with ?presence=1 is
// told who else has the page open, within a presence period of each arrival and
// departure: signed-in people by their verified address, an API key's stream as
// its agent, a stream without a credential counted but not named. The comment
// stream does not count, and a stream that did not ask never gets a presence frame.
func TestPresenceFollowsWhoHasThePageOpen(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), fastPresence)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	alice := signIn(t, e, in, "alice@example.com")
	bob := signIn(t, e, in, "bob@example.com")
	events := "/v1/pages/" + id + "/events"

	a := openStream(t, e, events+"?presence=1", alice)
	a.expect(t, `"type":"connected"`)
	a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com"}, Agents: []string{}})

	b := openStream(t, e, events+"?presence=true", bob)
	a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com", "bob@example.com"}, Agents: []string{}})
	b.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com", "bob@example.com"}, Agents: []string{}})

	anon := openStream(t, e, events, "")
	openStream(t, e, "/v1/pages/"+id+"/comments/stream", "") // not a page stream: not counted
	a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com", "bob@example.com"}, Agents: []string{}, Anonymous: 1})

	agent := openStream(t, e, events, key)
	got := presenceOf(t, a.expect(t, `"type":"presence"`))
	if len(got.Agents) != 1 || !strings.HasPrefix(got.Agents[0], "agent:") || got.Anonymous != 1 {
		t.Fatalf("presence with the owner's key watching: %+v, want one agent:<key name> and 1 anonymous", got)
	}

	b.cancel() // Bob closes the tab
	agent.cancel()
	a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com"}, Agents: []string{}, Anonymous: 1})
	anon.cancel()
	a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com"}, Agents: []string{}})

	for _, d := range drain(anon) {
		if strings.Contains(d, "presence") {
			t.Fatalf("a stream that did not ask got a presence frame: %s", d)
		}
	}
	r := call(t, e, nil, req{method: "GET", path: events + "?presence=maybe"})
	wantError(t, "?presence=maybe", r, 400, "INVALID_REQUEST", map[string]any{"field": "presence", "constraint": "boolean"})
}

// drain is what a closed stream had received and nobody read.
func drain(s *stream) []string {
	<-s.done
	var out []string
	for {
		select {
		case d := <-s.data:
			out = append(out, d)
		default:
			return out
		}
	}
}

// TestPresenceIsPacedUnderACrowd: 200 viewers arriving at once and leaving again
// cost the watcher at most one presence frame per period (plus the first), and the
// last frames count all of them, then none.
func TestPresenceIsPacedUnderACrowd(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), fastPresence)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	alice := signIn(t, e, in, "alice@example.com")
	events := "/v1/pages/" + id + "/events"
	a := openStream(t, e, events+"?presence=1", alice)
	alone := page.PresenceData{People: []string{"alice@example.com"}, Agents: []string{}}
	a.presenceUntil(t, alone)

	const crowd = 200
	start := time.Now()
	streams := make([]*stream, crowd)
	var wg sync.WaitGroup
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, status, body := dialStream(t, e, events, "")
			if status != 200 {
				t.Errorf("viewer %d: %d %s", i, status, body)
				return
			}
			streams[i] = s
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	frames := a.presenceUntil(t, page.PresenceData{People: []string{"alice@example.com"}, Agents: []string{}, Anonymous: crowd})
	for _, s := range streams {
		s.cancel()
	}
	frames += a.presenceUntil(t, alone)
	took := time.Since(start)
	bound := int(took/presenceEvery) + 2
	if frames > bound {
		t.Fatalf("%d viewers came and went in %s: %d presence frames, want at most %d (one per %s)", crowd, took, frames, bound, presenceEvery)
	}
	t.Logf("%d viewers came and went in %s: %d presence frames (bound %d)", crowd, took, frames, bound)
}
