package maillink

import (
	"encoding/hex"
	"time"

	"folio/persistence"
)

// Kept is how long a link's row outlives its expiry: until then a late click is
// told the link expired (and which page it was for); after it, the row is swept
// and the link reads as unknown. Every link ever minted is therefore gone Kept
// after it expired, so the rows grow with the mails of a month, not of all time.
const Kept = 30 * 24 * time.Hour

// dueBucket orders the links by when they are forgotten: Ordered{N: ExpiresAt +
// Kept, ID: hex(hash)} -> 1. Mint writes the row in the link's transaction.
const dueBucket = "decision_links_due"

func forgetKey(l Link) []byte {
	return persistence.Ordered{N: persistence.Nanos(l.ExpiresAt.Add(Kept)), ID: hex.EncodeToString(l.Hash)}.Key()
}

// Sweep deletes, in one transaction, at most max links whose time to be forgotten
// is not after now, with their due rows; it returns how many went. The node calls
// it periodically, and again at once while a sweep comes back full.
func Sweep(store *persistence.Store, now time.Time, max int) (int, error) {
	n := 0
	err := store.Update(func(tx *persistence.Tx) error {
		var keys [][]byte
		// A scan inside a write (on PostgreSQL it locks no row, and at read
		// committed sees what was committed when it started): enough here, since a
		// due row is written once with its link and only this sweep deletes either;
		// a link written meanwhile is due 30 days after it expires, never now, and
		// two nodes sweeping at once delete the same rows twice, harmlessly.
		tx.Scan(dueBucket, nil, false, func(k, _ []byte) bool {
			o, ok := persistence.ParseOrdered(k, "")
			if !ok {
				return true // not a due row: never ours to delete
			}
			if o.Time().After(now) || len(keys) >= max {
				return false
			}
			keys = append(keys, append([]byte(nil), k...))
			return true
		})
		for _, k := range keys {
			o, _ := persistence.ParseOrdered(k, "")
			if h, err := hex.DecodeString(o.ID); err == nil {
				if err := tx.Delete(bucket, h); err != nil {
					return err
				}
			}
			if err := tx.Delete(dueBucket, k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	return n, err
}

// SweepAll sweeps until a sweep comes back short of max: what a periodic loop runs.
func SweepAll(store *persistence.Store, now time.Time, max int) error {
	for {
		n, err := Sweep(store, now, max)
		if err != nil || n < max {
			return err
		}
	}
}
