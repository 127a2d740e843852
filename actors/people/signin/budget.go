package signin

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/model/ratelimit"
)

// claimBudget is the global budget of failed claim attempts, across every client
// address and person (the rule: ratelimit.Pause); while it is spent, every claim by
// code or key is refused with 429 (details.scope "global") and the seconds to wait. Its
// metrics are what an operator alerts on: failures climbing, or the budget spent
// at all.
type claimBudget struct {
	pause *ratelimit.Pause

	failures *prometheus.CounterVec // by proof: code, key
	refused  prometheus.Counter     // attempts refused because the budget was spent
}

func newClaimBudget(reg prometheus.Registerer, now func() time.Time, n int, window time.Duration) *claimBudget {
	b := &claimBudget{pause: ratelimit.NewPause(now, n, window)}
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
		if b.pause.Spent() > 0 {
			return 1
		}
		return 0
	})
	reg.MustRegister(b.failures, b.refused, spent)
	return b
}

// admit refuses an attempt while the budget is spent: 429, its retry_after the
// seconds to wait (the transports' Retry-After).
func (b *claimBudget) admit() error {
	_, err := b.pause.Admit()
	if err != nil {
		b.refused.Inc()
	}
	return err
}

// fail records an attempt that proved nothing and spends one failure.
func (b *claimBudget) fail(proof string) {
	b.failures.WithLabelValues(proof).Inc()
	b.pause.Fail()
}
