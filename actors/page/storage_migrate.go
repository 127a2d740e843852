package page

import (
	"encoding/json"
	"strings"

	"folio/persistence"
)

// bucketMigrations marks the one-time migrations done on a store (name -> 1).
const bucketMigrations = "page_migrations"

// MigrateStorage brings a store written before stored bytes and file retention
// existed up to date, once (a marker in the same transaction): each tenant's file
// bytes are set to the sum of its file records, and every ended page that still has
// files enters the retention index. It runs at start, before any page commits, in
// one transaction that reads every page and file record (once per store).
func MigrateStorage(store *persistence.Store) error {
	const marker = "stored_files_v1"
	return store.Update(func(tx *persistence.Tx) error {
		if tx.Get(bucketMigrations, []byte(marker)) != nil {
			return nil
		}
		// Scans inside a write: on PostgreSQL they lock no row and see what was
		// committed when each started. The marker, read (and so locked) above and
		// written below, makes the migration run once: a node migrating at the same
		// time reads the marker as absent too, and its insert of it fails on the
		// unique key, which runs its function again, to find the marker. What it
		// does not cover is a node already serving, writing files while a new node
		// migrates: the migration is for a store written before the counts existed,
		// so every node of that release starts it before serving.
		sums := map[string]int64{}
		tx.Scan(bucketFiles, nil, false, func(_, v []byte) bool {
			if f := decodeFile(v); f != nil {
				tenant, _, _ := strings.Cut(f.StorageKey, "/")
				sums[tenant] += f.SizeBytes
			}
			return true
		})
		var due [][]byte
		tx.Scan(bucketPages, nil, false, func(_, v []byte) bool {
			var p Page
			if json.Unmarshal(v, &p) == nil {
				if k := filesDueKey(&p); k != nil {
					due = append(due, k)
				}
			}
			return true
		})
		for tenant, n := range sums {
			if err := tx.Put(bucketStored, storedKey(tenant, StoredFiles), persistence.U64(uint64(n))); err != nil {
				return err
			}
		}
		for _, k := range due {
			if err := tx.Put(bucketFilesDue, k, nil); err != nil {
				return err
			}
		}
		return tx.Put(bucketMigrations, []byte(marker), []byte{1})
	})
}
