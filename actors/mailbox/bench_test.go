package mailbox

import (
	"fmt"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// BenchmarkStageAtRetention is the log's share of one action execution in steady
// state: two events (action.executed, page.completed) appended to a tenant's log
// that is full, so each also trims the oldest. 64 executions share a commit, as
// under load; ns/op includes the commit's write and fsync divided among them.
func BenchmarkStageAtRetention(b *testing.B) {
	s, err := persistence.Open(b.TempDir(), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := Retention{MaxEvents: 2000}
	at := time.Unix(1700000000, 0)
	n := 0
	batch := func(k int) {
		if err := s.Update(func(tx *persistence.Tx) error {
			for i := 0; i < k; i++ {
				pg := fmt.Sprintf("pg_%08d", n+i)
				evs := []page.Event{
					{ID: "evt_" + pg + "a", Type: "action.executed", PageID: pg, TenantID: "ten_1", At: at, Data: page.ActionExecuted{ActionID: "approve"}},
					{ID: "evt_" + pg + "b", Type: "page.completed", PageID: pg, TenantID: "ten_1", At: at, Data: page.PageCompleted{ActionID: "approve", Decision: "approved"}},
				}
				for j := range evs {
					evs[j].Seal()
				}
				if err := stage(tx, r, evs); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		n += k
	}
	for n < r.MaxEvents {
		batch(64)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += 64 {
		batch(min(64, b.N-done))
	}
}
