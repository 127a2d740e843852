package ratelimit

import (
	"errors"
	"testing"
	"time"

	"folio/actors/model/fault"
)

// TestAPauseStopsEveryAttemptOnceTheFailuresAreSpent: three failures an hour spend
// the budget; the next attempt is refused for the 20 minutes one failure takes to
// refill (RATE_LIMITED, scope global, retry_after in seconds), then admitted.
func TestAPauseStopsEveryAttemptOnceTheFailuresAreSpent(t *testing.T) {
	clk := newFakeClock()
	p := NewPause(clk.now, 3, time.Hour)
	for i := range 3 {
		if _, err := p.Admit(); err != nil {
			t.Fatalf("attempt %d refused before the budget was spent: %v", i, err)
		}
		p.Fail()
	}
	retry, err := p.Admit()
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.RateLimited || fe.Details["scope"] != "global" || retry != 1200 || fe.Details["retry_after"] != 1200 {
		t.Fatalf("after 3 failures: retry %d, %v; want RATE_LIMITED, scope global, retry 1200 s", retry, err)
	}
	clk.advance(20 * time.Minute)
	if _, err := p.Admit(); err != nil || p.Spent() > 0 {
		t.Fatalf("a failure's worth refilled, still refused: %v", err)
	}
	if _, err := NewPause(clk.now, 0, time.Hour).Admit(); err != nil {
		t.Fatal("a budget of 0 paused")
	}
}

// TestARefusalNamesTheLimitAndWhenToRetry: a per-minute refusal names the rate and
// the policy; a refusal over a longer window is an abuse limit naming the window;
// an allowed decision is no error.
func TestARefusalNamesTheLimitAndWhenToRetry(t *testing.T) {
	if err := Refusal("free", "tenant", Decision{Allowed: true, Limit: 60}); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	var fe *fault.Error
	err := Refusal("free", "tenant", Decision{Limit: 60, Window: time.Minute, RetryAfter: 1500 * time.Millisecond})
	if !errors.As(err, &fe) || fe.Code != fault.RateLimited || fe.Details["requests_per_minute"] != 60 ||
		fe.Details["retry_after"] != 2 || fe.Details["scope"] != "tenant" || fe.Message != "too many requests: 60 per minute allowed; retry in 2 s" {
		t.Fatalf("per minute: %#v", err)
	}
	err = Refusal("signin_links", "address", Decision{Limit: 5, Window: time.Hour, RetryAfter: 12 * time.Minute})
	if !errors.As(err, &fe) || fe.Details["window_seconds"] != 3600 || fe.Details["limit"] != "signin_links" ||
		fe.Message != "too many attempts: 5 per 60 minutes allowed; retry in 720 s" {
		t.Fatalf("abuse limit: %#v", err)
	}
}
