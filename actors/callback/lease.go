package callback

import (
	"bytes"
	"crypto/rand"
	"log/slog"
	"time"

	"folio/persistence"
)

// Leases, on a store several nodes share (persistence.Store.Shared): every node's
// dispatcher may hold the same due rows, its own and, through the sweep below, those
// of the others. Before an attempt the dispatcher claims the delivery's lease in one
// transaction: a lease that is absent, expired or its own is (re)written with this
// node's id and an expiry; a live lease of another node means that node is sending,
// and this one looks again when the lease ends. Recording the attempt releases the
// lease in the same transaction. A node that dies mid-attempt leaves a lease that
// expires, and another node's sweep finds the row still due and sends the same
// stored body under the same event id.
//
// The claim is a read then a write of one key in a serializable transaction, so of
// two nodes claiming at once one commits and the other is re-run and finds the
// lease held: the same one holder FOR UPDATE SKIP LOCKED gives, on the one storage
// interface both engines keep. On a node's own store (bbolt) no lease is written.
const bucketLeases = "delivery_leases" // deliveryId -> until(8) node id

// leaseFor is how long a lease lasts: twice an attempt's timeout, so an attempt
// still running (bounded by the timeout) and its recording are never taken over.
func (d *Dispatcher) leaseFor() time.Duration { return 2 * d.cfg.Timeout }

// newNodeID names this dispatcher's leases (random per process start: a restarted
// node does not own the leases of its previous life).
func newNodeID() string { return rand.Text() }

// claim takes delivery id's lease for node for the given duration. It does not when
// the delivery is no longer to be sent by this attempt (recorded elsewhere since it
// was scheduled: finished, or its next attempt later; a manual attempt skips these
// checks) or another node's lease runs past now. later is then when to look again
// (nil: never).
func claim(store *persistence.Store, id, node string, manual bool, clock func() time.Time, lease time.Duration) (held bool, later *time.Time, err error) {
	err = store.Update(func(tx *persistence.Tx) error {
		held, later = false, nil
		// The time is read when the transaction runs, not when it was asked for: a
		// claim that waited in a busy commit loop must not start its lease expired.
		now := clock()
		until := now.Add(lease)
		cur, err := get(tx, id)
		if err != nil || cur == nil {
			return err
		}
		if !manual && (cur.Status != StatusPending || cur.Waiting()) {
			return nil
		}
		if !manual && cur.NextAttemptAt != nil && cur.NextAttemptAt.After(now) {
			t := *cur.NextAttemptAt
			later = &t
			return nil
		}
		if v := tx.Get(bucketLeases, []byte(id)); len(v) >= 8 && !bytes.Equal(v[8:], []byte(node)) {
			if end := time.Unix(0, int64(persistence.ReadU64(v[:8]))); end.After(now) {
				later = &end
				return nil
			}
		}
		held = true
		return tx.Put(bucketLeases, []byte(id), append(persistence.U64(uint64(until.UnixNano())), node...))
	})
	return held, later, err
}

// release drops delivery id's lease inside the transaction recording its attempt.
func release(tx *persistence.Tx, id string) error { return tx.Delete(bucketLeases, []byte(id)) }

// letGo drops this node's lease of delivery id when its attempt was cancelled at
// shutdown, so another node need not wait for the lease to expire.
func (d *Dispatcher) letGo(id string) {
	err := d.cfg.Store.Update(func(tx *persistence.Tx) error {
		if v := tx.Get(bucketLeases, []byte(id)); len(v) >= 8 && bytes.Equal(v[8:], []byte(d.node)) {
			return release(tx, id)
		}
		return nil
	})
	if err != nil {
		d.cfg.Log.Warn("callback: releasing a lease at shutdown failed; it expires", slog.String("delivery", id), slog.Any("err", err))
	}
}

// dueBy lists at most limit due rows at or before t, earliest first (the sweep).
func dueBy(store *persistence.Store, t time.Time, limit int) ([]due, error) {
	var out []due
	err := store.View(func(tx *persistence.Tx) error {
		tx.ScanRange(bucketDue, nil, persistence.U64(uint64(t.UnixNano())+1), func(k, v []byte) bool {
			if r, ok := dueOf(k, v); ok {
				out = append(out, r)
			}
			return len(out) < limit
		})
		return nil
	})
	return out, err
}
