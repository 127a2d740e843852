//go:build linux

package tenant

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
	"folio/persistence/pgtest"
)

// TestFirstSignInsOnTwoNodesMakeOneWorkspace: a person's first sign-in reaching
// two nodes on one PostgreSQL database at once (8 sign-ins, each making a new
// workspace with the person as owner, 4 per node): one workspace is made, the
// others are told the person already belongs to one (CONFLICT), so the person
// is not the owner of several workspaces. At read committed the "already
// belongs" check is a scan that locks nothing; the sign-in row read first is
// what makes the nodes take turns.
func TestFirstSignInsOnTwoNodesMakeOneWorkspace(t *testing.T) {
	url := pgtest.URL(t)
	var regs [2]*registry.Registry
	for i := range regs {
		store, err := persistence.OpenURL(url, "", persistence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		sys := actor.NewActorSystem()
		t.Cleanup(sys.Shutdown) // before the store closes
		regs[i] = registry.Start(sys, fmt.Sprint("tenants-node", i), NewProducer(&Deps{Store: store, Now: time.Now}), registry.Options{Timeout: 10 * time.Second})
	}
	began := time.Now()
	defer func() { t.Logf("3 rounds in %v", time.Since(began)) }()
	for round := 0; round < 3; round++ {
		owner := &Member{UserID: fmt.Sprint("usr_", round), Email: fmt.Sprintf("p%d@example.com", round)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		made, refused := 0, 0
		start := make(chan struct{})
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				_, err := registry.Call[*Registered](context.Background(), regs[i%2], fmt.Sprintf("ten_%d_%d", round, i),
					&Register{Name: "Acme", Owner: owner})
				var fe *fault.Error
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					made++
				case errors.As(err, &fe) && fe.Code == fault.Conflict:
					refused++
				default:
					t.Errorf("sign-in %d: %v", i, err)
				}
			}(i)
		}
		close(start)
		wg.Wait()
		if made != 1 || refused != 7 {
			t.Fatalf("round %d: %d workspaces made for one person's first sign-ins, %d refused; want 1 and 7", round, made, refused)
		}
	}
}
