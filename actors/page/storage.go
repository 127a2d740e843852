package page

import (
	"fmt"

	"folio/actors/model/fault"
	"folio/persistence"
)

// A tenant's stored bytes are counted in two rows of their own: the bytes of its
// completed files (raised in the commit that records a file, lowered in the commit
// that deletes its record, files.go and files_retention.go) and the bytes of its
// agent event log (raised and lowered by the mailbox in the commits that append and
// trim it). Each row changes in the same transaction as what it counts, so after
// any crash the count and the records agree; the plan's storage quota is checked
// against them inside the transaction that would pass it (checkStorage).
//
// Bytes uploaded and not completed are not counted here: they hold their place in
// the page's own budget until they complete or expire, and are swept unseen.

const bucketStored = "stored_bytes" // tenantId 0x00 kind -> bytes(8)

// Kinds of stored bytes.
const (
	StoredFiles  = "files"
	StoredEvents = "events"
)

// StoredBytes is what a tenant stores, by kind.
type StoredBytes struct {
	Files  int64
	Events int64
}

// Total is every byte counted against the tenant's storage quota.
func (s StoredBytes) Total() int64 { return s.Files + s.Events }

func storedKey(tenant, kind string) []byte {
	return persistence.Key([]byte(tenant), []byte(kind))
}

// StoredRead names the row AddStored reads, for a Reader.
func StoredRead(tenant, kind string) persistence.Read {
	return persistence.Read{Bucket: bucketStored, Key: storedKey(tenant, kind)}
}

// AddStored changes a tenant's stored bytes of kind by delta inside tx (never below
// zero). It is a pure function of tx.
func AddStored(tx *persistence.Tx, tenant, kind string, delta int64) error {
	if delta == 0 || tenant == "" {
		return nil
	}
	k := storedKey(tenant, kind)
	n := int64(persistence.ReadU64(tx.Get(bucketStored, k))) + delta
	if n < 0 {
		n = 0
	}
	return tx.Put(bucketStored, k, persistence.U64(uint64(n)))
}

// Stored reads a tenant's stored bytes inside tx.
func Stored(tx *persistence.Tx, tenant string) StoredBytes {
	return StoredBytes{
		Files:  int64(persistence.ReadU64(tx.Get(bucketStored, storedKey(tenant, StoredFiles)))),
		Events: int64(persistence.ReadU64(tx.Get(bucketStored, storedKey(tenant, StoredEvents)))),
	}
}

// storedOf reads a tenant's committed stored bytes.
func storedOf(store *persistence.Store, tenant string) (StoredBytes, error) {
	var s StoredBytes
	err := store.View(func(tx *persistence.Tx) error {
		s = Stored(tx, tenant)
		return nil
	})
	return s, err
}

// storageFull is the refusal of a write that would take a tenant past its plan's
// storage quota: 413, naming the limit and what to do.
func storageFull(limit int64, used StoredBytes, adding int64) *fault.Error {
	return fault.New(fault.TooLarge,
		fmt.Sprintf("the workspace's storage quota of %s is reached (%s stored, this file needs %s more): delete files or pages it no longer needs, or move to a larger plan",
			HumanBytes(limit), HumanBytes(used.Total()), HumanBytes(adding)),
		map[string]any{"limit": "storage_bytes", "storage_limit_bytes": limit, "stored_bytes": used.Total(),
			"stored_file_bytes": used.Files, "stored_event_bytes": used.Events, "requested_bytes": adding})
}

// checkStorage refuses adding bytes when the tenant's stored bytes would pass limit
// (0: unlimited). Called inside the transaction that adds them, it sees every
// commit before it, so concurrent writes of one tenant never pass the quota together.
func checkStorage(tx *persistence.Tx, tenant string, limit, adding int64) error {
	if limit <= 0 {
		return nil
	}
	if used := Stored(tx, tenant); used.Total()+adding > limit {
		return storageFull(limit, used, adding)
	}
	return nil
}

// HumanBytes writes n in the largest binary unit that keeps it readable.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
