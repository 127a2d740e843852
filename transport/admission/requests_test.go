package admission

import (
	"testing"
	"time"

	"folio/actors/model/fault"
)

// TestRequestsCountAgainstTheirCaller: a workspace's requests spend its plan's
// bucket (its policy the plan's name), whoever of its keys sends them; a
// signed-in person has a bucket of their own, untouched by their address; an
// address without a credential has its own, and registrations are refused past
// theirs before they spend a request of it. A refusal is the 429 naming its
// scope with retry_after, and the minute gives requests back.
func TestRequestsCountAgainstTheirCaller(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	q := NewRequests(RequestLimits{AnonPerMinute: 4, RegisterPerMinute: 2, PersonPerMinute: 3}, func() time.Time { return now })
	ws := Caller{TenantID: "ten_a", Plan: "free", PlanPerMinute: 2, Address: "198.51.100.7"}
	for i := range 2 {
		if rate, err := q.Take(ws); err != nil || rate.Policy != "free" || rate.Decision.Limit != 2 || rate.Decision.Remaining != 1-i {
			t.Fatalf("workspace request %d: %+v %v", i+1, rate, err)
		}
	}
	rate, err := q.Take(ws)
	fe := refusal(t, err, fault.RateLimited)
	if rate.Decision.Allowed || fe.Details["scope"] != "tenant" || fe.Details["policy"] != "free" {
		t.Fatalf("the workspace's third request: %+v %v", rate, fe.Details)
	}
	if s, _ := fe.Details["retry_after"].(int); s < 1 || s > 30 {
		t.Fatalf("retry_after %v, want the seconds until one request is back", fe.Details["retry_after"])
	}
	// The same address, as a person and without a credential, still has its own buckets.
	for i := range 3 {
		if rate, err := q.Take(Caller{Person: "usr_1", Address: "198.51.100.7"}); err != nil || rate.Policy != "person" {
			t.Fatalf("person request %d: %+v %v", i+1, rate, err)
		}
	}
	if _, err := q.Take(Caller{Person: "usr_1"}); refusal(t, err, fault.RateLimited).Details["scope"] != "person" {
		t.Fatalf("the person's fourth request: %v", err)
	}
	anon := Caller{Address: "198.51.100.7"}
	reg := Caller{Address: "198.51.100.7", Register: true}
	for i := range 2 {
		if rate, err := q.Take(reg); err != nil || rate.Policy != "anonymous" {
			t.Fatalf("registration %d: %+v %v", i+1, rate, err)
		}
	}
	rate, err = q.Take(reg)
	if fe := refusal(t, err, fault.RateLimited); rate.Policy != "register" || fe.Details["scope"] != "address" {
		t.Fatalf("the third registration: %+v %v", rate, fe.Details)
	}
	// The refused registration spent none of the address's requests: two are left.
	for i := range 2 {
		if _, err := q.Take(anon); err != nil {
			t.Fatalf("anonymous request %d after the refused registration: %v", i+3, err)
		}
	}
	if _, err := q.Take(anon); refusal(t, err, fault.RateLimited).Details["policy"] != "anonymous" {
		t.Fatalf("the address's fifth request: %v", err)
	}
	now = now.Add(time.Minute)
	if _, err := q.Take(ws); err != nil {
		t.Fatalf("a minute later the workspace is still refused: %v", err)
	}
}
