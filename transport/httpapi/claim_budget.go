package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
)

// claimBudget is the global budget of failed claim attempts, across every client
// address and person: at most n failures per window (a leaky bucket, refilled
// evenly). Per-address limits alone let a botnet or an IPv6 /48 sweep a code
// space; this one does not care where guesses come from. While it is spent, every
// claim by code or key is refused with 429 (details.scope "global") until one
// failure's worth has refilled; the claim mail's link is not affected. Its metrics
// are what an operator alerts on: failures climbing, or the budget spent at all.
type claimBudget struct {
	n      int
	window time.Duration
	now    func() time.Time
	lim    *ratelimit.Limiter

	mu         sync.Mutex
	spentUntil time.Time // refusing every attempt until then

	failures *prometheus.CounterVec // by proof: code, key
	refused  prometheus.Counter     // attempts refused because the budget was spent
}

func newClaimBudget(reg prometheus.Registerer, now func() time.Time, n int, window time.Duration) *claimBudget {
	b := &claimBudget{n: n, window: window, now: now, lim: ratelimit.New(now, 16)}
	b.failures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_claim_failures_total",
		Help: "Claim attempts whose proof (claim code and claim token, or whole API key) matched no account, by proof. A rise means someone is guessing.",
	}, []string{"proof"})
	b.refused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_claim_budget_exhausted_total",
		Help: "Claim attempts refused (429) because the global failure budget (--claim-failure-budget) was spent.",
	})
	spent := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "folio_claim_budget_exhausted",
		Help: "1 while the global budget of failed claim attempts is spent and every claim by code or key is refused, else 0.",
	}, func() float64 {
		if b.spent() > 0 {
			return 1
		}
		return 0
	})
	reg.MustRegister(b.failures, b.refused, spent)
	return b
}

// spent is how long the budget stays spent (0: it is not).
func (b *claimBudget) spent() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spentUntil.Sub(b.now())
}

// admit refuses an attempt while the budget is spent: 429 with Retry-After.
func (b *claimBudget) admit(w http.ResponseWriter) error {
	if b.n <= 0 {
		return nil
	}
	wait := b.spent()
	if wait <= 0 {
		return nil
	}
	b.refused.Inc()
	retry := ceilSeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	return fault.New(fault.RateLimited,
		fmt.Sprintf("claiming is paused for everyone for %d s: too many wrong claim attempts were made on this service. Try again then; the link in a claim e-mail still works", retry),
		map[string]any{"limit": "claim_failures", "scope": "global", "per_window": b.n, "window_seconds": ceilSeconds(b.window), "policy": "claim_failures", "retry_after": retry})
}

// fail records an attempt that proved nothing and spends one failure; the failure
// that spends the last of the budget starts the pause, which lasts until one
// failure's worth has refilled.
func (b *claimBudget) fail(proof string) {
	b.failures.WithLabelValues(proof).Inc()
	if b.n <= 0 {
		return
	}
	d := b.lim.TakeOf("global", b.n, b.window)
	var wait time.Duration
	switch {
	case !d.Allowed:
		wait = d.RetryAfter
	case d.Remaining == 0:
		interval := int64(b.window) / int64(b.n)
		wait = d.Reset - time.Duration(interval*int64(b.n-1))
	default:
		return
	}
	b.mu.Lock()
	if until := b.now().Add(wait); until.After(b.spentUntil) {
		b.spentUntil = until
	}
	b.mu.Unlock()
}
