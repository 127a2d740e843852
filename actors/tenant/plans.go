package tenant

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"folio/persistence"
)

// PlanSet is the plans a node offers: the built-in Plans with the operator's
// server-wide overrides (--plan name=rpm/pages) applied.
type PlanSet map[string]Plan

// NewPlanSet is Plans with overrides replacing whole entries by name.
func NewPlanSet(overrides map[string]Plan) PlanSet {
	ps := PlanSet{}
	for n, p := range Plans {
		ps[n] = p
	}
	for n, p := range overrides {
		p.Name = n
		ps[n] = p
	}
	return ps
}

// Names lists the plans in a stable order.
func (ps PlanSet) Names() []string {
	out := make([]string, 0, len(ps))
	for n := range ps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// For is the limits that apply to t: its plan's, with the tenant's own limits (set
// by an operator) taking precedence. An unknown plan name limits nothing.
func (ps PlanSet) For(t Tenant) Plan {
	p, ok := ps[t.Plan]
	if !ok {
		p = Plan{Name: t.Plan}
	}
	if t.RequestsPerMinute != nil {
		p.RequestsPerMinute = *t.RequestsPerMinute
	}
	if t.PagesPerMonth != nil {
		p.PagesPerMonth = *t.PagesPerMonth
	}
	return p
}

// ParsePlanSpecs reads "name=rpm/pages[/storage]" items separated by commas (the
// --plan flag and FOLIO_PLANS), e.g. "enterprise=6000/100000,free=30/50/200MiB"; 0
// means unlimited. storage is bytes, or a number with KiB, MiB, GiB or TiB; without
// it a built-in plan keeps its own storage quota (another name: unlimited).
func ParsePlanSpecs(spec string) (map[string]Plan, error) {
	out := map[string]Plan{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, limits, ok := strings.Cut(item, "=")
		parts := strings.Split(limits, "/")
		if !ok || len(parts) < 2 || len(parts) > 3 || !validPlanName(name) {
			return nil, fmt.Errorf("plan %q: want name=requests_per_minute/pages_per_month[/storage_bytes], name of [a-z0-9_-]", item)
		}
		r, err1 := strconv.Atoi(parts[0])
		p, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || r < 0 || p < 0 {
			return nil, fmt.Errorf("plan %q: limits must be whole numbers >= 0 (0 = unlimited)", item)
		}
		storage := Plans[name].StorageBytes
		if len(parts) == 3 {
			var err error
			if storage, err = parseBytes(parts[2]); err != nil {
				return nil, fmt.Errorf("plan %q: storage: %w", item, err)
			}
		}
		out[name] = Plan{Name: name, RequestsPerMinute: r, PagesPerMonth: p, StorageBytes: storage}
	}
	return out, nil
}

// parseBytes reads a size: whole bytes, or a whole number with a binary unit
// (KiB, MiB, GiB, TiB), e.g. 1GiB; 0 and more.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for i, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			s, mult = strings.TrimSpace(n), int64(1)<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size: want bytes or a whole number of KiB, MiB, GiB or TiB", s)
	}
	return n * mult, nil
}

// validPlanName: 1-32 of [a-z0-9_-] (plan names appear in headers and JSON as is).
func validPlanName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Book answers "what limits apply to this tenant" on every request without touching
// bbolt: a sharded cache of each tenant's effective Plan, filled from the tenant
// record on a miss. Whoever commits a change to a tenant's plan calls Forget after
// the commit, so the next request reads the new limits. It holds at most max
// entries; past that an arbitrary entry is dropped (it is re-read on its next use).
type Book struct {
	store  *persistence.Store
	plans  PlanSet
	seed   maphash.Seed
	max    int
	shards [bookShards]bookShard
}

const bookShards = 32

type bookShard struct {
	mu sync.RWMutex
	m  map[string]Plan
}

// NewBook caches at most max tenants (default 100,000 when max <= 0).
func NewBook(store *persistence.Store, plans PlanSet, max int) *Book {
	if max <= 0 {
		max = 100_000
	}
	b := &Book{store: store, plans: plans, seed: maphash.MakeSeed(), max: max}
	for i := range b.shards {
		b.shards[i].m = map[string]Plan{}
	}
	return b
}

// Plans is the node's plan set.
func (b *Book) Plans() PlanSet { return b.plans }

// PlanOf is t's effective plan (operator overrides included); a nil Book (no
// tenancy on this node) answers the built-in plans.
func (b *Book) PlanOf(t Tenant) Plan {
	if b == nil {
		return NewPlanSet(nil).For(t)
	}
	return b.plans.For(t)
}

func (b *Book) shard(id string) *bookShard {
	return &b.shards[maphash.String(b.seed, id)%bookShards]
}

// Limits is the effective plan of tenantID; false when the tenant does not exist;
// err when the store did not answer (the plan is then unknown, not "none").
func (b *Book) Limits(tenantID string) (Plan, bool, error) {
	sh := b.shard(tenantID)
	sh.mu.RLock()
	p, ok := sh.m[tenantID]
	sh.mu.RUnlock()
	if ok {
		return p, true, nil
	}
	t, ok, err := Load(b.store, tenantID)
	if err != nil || !ok {
		return Plan{}, false, err
	}
	p = b.plans.For(t)
	sh.mu.Lock()
	if len(sh.m) >= b.max/bookShards+1 {
		for k := range sh.m { // drop one arbitrary entry: it is re-read when next used
			delete(sh.m, k)
			break
		}
	}
	sh.m[tenantID] = p
	sh.mu.Unlock()
	return p, true, nil
}

// Forget drops a tenant's cached limits (after its plan changed).
func (b *Book) Forget(tenantID string) {
	sh := b.shard(tenantID)
	sh.mu.Lock()
	delete(sh.m, tenantID)
	sh.mu.Unlock()
}

// Len is how many tenants are cached.
func (b *Book) Len() int {
	n := 0
	for i := range b.shards {
		b.shards[i].mu.RLock()
		n += len(b.shards[i].m)
		b.shards[i].mu.RUnlock()
	}
	return n
}

// Load reads a tenant record: ok false when it is not stored, err when the store
// did not answer (never "not stored").
func Load(store *persistence.Store, id string) (t Tenant, ok bool, err error) {
	b, err := store.Get(bucketTenants, []byte(id))
	if err != nil {
		return Tenant{}, false, fmt.Errorf("tenant: load %s: %w", id, err)
	}
	t, ok = decodeTenant(b)
	return t, ok, nil
}

// nextMonth is the start of the UTC month after at's: when a monthly quota resets.
func nextMonth(at time.Time) time.Time {
	u := at.UTC()
	return time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// PagesThisMonth is the tenant's committed count of live pages created in at's UTC month.
func PagesThisMonth(tx *persistence.Tx, tenantID string, at time.Time) int {
	return int(persistence.ReadU64(tx.Get(BucketUsage, monthKey(tenantID, at))))
}
