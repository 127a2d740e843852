package page

import (
	"encoding/json"
	"testing"
	"time"

	"folio/persistence"
	"folio/persistence/storetest"
)

// TestMigrateStorageCountsFilesStoredBeforeAndIndexesEndedPages: on a store written
// before stored bytes were counted, the migration sets each tenant's file bytes to
// its records' sum and puts ended pages with files in the retention index, once.
func TestMigrateStorageCountsFilesStoredBeforeAndIndexesEndedPages(t *testing.T) {
	store := storetest.Open(t, t.TempDir())
	t.Cleanup(func() { _ = store.Close() })
	ended := time.Now().Add(-time.Hour).UTC()
	pages := []*Page{
		{V: 1, ID: "pg_done", TenantID: "ten_a", Status: Revoked, RevokedAt: &ended, FileCount: 2, FileBytes: 300},
		{V: 1, ID: "pg_open", TenantID: "ten_a", Status: Active, FileCount: 1, FileBytes: 50},
	}
	files := []*File{
		{V: 1, ID: "file_1", PageID: "pg_done", Seq: 1, SizeBytes: 100, StorageKey: "ten_a/pg_done/1_a"},
		{V: 1, ID: "file_2", PageID: "pg_done", Seq: 2, SizeBytes: 200, StorageKey: "ten_a/pg_done/2_b"},
		{V: 1, ID: "file_3", PageID: "pg_open", Seq: 1, SizeBytes: 50, StorageKey: "ten_a/pg_open/1_c"},
	}
	if err := store.Update(func(tx *persistence.Tx) error {
		for _, p := range pages {
			b, _ := json.Marshal(p)
			if err := tx.Put(bucketPages, []byte(p.ID), b); err != nil {
				return err
			}
		}
		for _, f := range files {
			b, _ := json.Marshal(f)
			if err := tx.Put(bucketFiles, commentKey(f.PageID, f.Seq), b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for run, want := range []int64{350, 357} { // the second run finds its marker and changes nothing
		if err := MigrateStorage(store); err != nil {
			t.Fatal(err)
		}
		if s, _ := storedOf(store, "ten_a"); s.Files != want {
			t.Fatalf("run %d: file bytes after the migration: %d, want %d", run, s.Files, want)
		}
		if due, err := dueFiles(store, time.Now(), 10); err != nil || len(due) != 1 || due[0] != "pg_done" {
			t.Fatalf("pages due for file retention: %v, want [pg_done]", due)
		}
		if err := store.Update(func(tx *persistence.Tx) error { return AddStored(tx, "ten_a", StoredFiles, 7) }); err != nil {
			t.Fatal(err)
		}
	}
}
