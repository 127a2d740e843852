package inbox

import (
	"slices"
	"sort"
	"time"

	"folio/persistence"
)

// A person's "Needs my decision" reaches past the workspaces they belong to: a
// page of another workspace whose open approval step names them (by verified
// address) waits on them too. bucketDecideReach says which workspaces have such
// pages for an address, counted in the same commits as the decision index:
//
//	len-prefixed "@"+address, tenant -> how many of that tenant's rows name them
//
// so a listing reads the rows of those workspaces only. Such a page is shown to
// the person only as its access lets them in (Asked.Admit, checked when listed).

func reachKey(audience, tenant string) []byte { return append(appendStr(nil, audience), tenant...) }

// addReach counts delta for each person's audience (not "*") of tenant. A pure
// function of the transaction.
func addReach(tx *persistence.Tx, tenant string, audiences []string, delta int64) error {
	for _, a := range audiences {
		if a == audienceAnyone {
			continue
		}
		if err := addCount(tx, bucketDecideReach, reachKey(a, tenant), delta); err != nil {
			return err
		}
	}
	return nil
}

// maxReached bounds the other workspaces one listing reads.
const maxReached = 64

// reached are the tenants with pages awaiting email (at most maxReached).
func reached(tx *persistence.Tx, email string) []string {
	prefix := appendStr(nil, audienceOf(email))
	var out []string
	tx.Scan(bucketDecideReach, prefix, false, func(k, _ []byte) bool {
		out = append(out, string(k[len(prefix):]))
		return len(out) < maxReached
	})
	return out
}

// Asked is whose list is read.
type Asked struct {
	Email   string   // the person's verified address
	Members []string // the workspaces they belong to: every page there lets them in
	// Admit tells whether a page of another workspace lets the person in now (its
	// access: public, or an allowed identity of theirs). Nil admits none. Called
	// outside any transaction.
	Admit func(a *Awaited) bool
}

// NeedsDecisionOf is needsDecision for q.Members, plus the pages of other
// workspaces whose open step names q.Email and that q.Admit lets them into. Total
// counts the member workspaces' pages and the other workspaces' admitted ones
// among those read (at most limit per workspace).
func NeedsDecisionOf(store *persistence.Store, q Asked, now time.Time, limit int) ([]Awaited, int, error) {
	out, total, err := needsDecision(store, q.Members, q.Email, now, limit)
	if err != nil || q.Email == "" || limit <= 0 || q.Admit == nil {
		return out, total, err
	}
	var others []Awaited
	err = store.View(func(tx *persistence.Tx) error {
		others = others[:0]
		for _, t := range reached(tx, q.Email) {
			if slices.Contains(q.Members, t) {
				continue
			}
			var err error
			if others, err = awaiting(tx, decidePrefix(t, audienceOf(q.Email)), now, limit, others); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	for i := range others {
		if q.Admit(&others[i]) {
			out = append(out, others[i])
			total++
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return awaitedBefore(&out[i], &out[j]) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, total, nil
}
