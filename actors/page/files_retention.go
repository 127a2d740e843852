package page

import (
	"time"

	"folio/actors/model/audit"
	"folio/persistence"
)

// A page's files live as long as the page is open and FileLimits.Retention after it
// ends (completed, revoked or expired), then they are deleted: records, bytes, and
// the tenant's stored bytes. The due index holds every ended page that still has
// files, keyed by the time it ended; write (store.go) keeps it in the same
// transaction as the page, so it is durable and complete, and RunFileRetention scans
// it from the start of the process (pages that fell due while it was down go first).
// A renewed expired page leaves the index (its files stay); the retention is read
// when the index is scanned, so changing the flag applies to pages already ended.

const bucketFilesDue = "files_due" // endedAt(8) 0x00 pageId -> nil, ended pages with files

// DropFiles tells a page to delete its files if their retention is over (sent by
// RunFileRetention; the page checks again).
type DropFiles struct{}

// endedAt is when an ended page ended (zero while it is open).
func endedAt(p *Page) time.Time {
	switch p.Status {
	case Completed:
		if p.CompletedAt != nil {
			return *p.CompletedAt
		}
	case Revoked:
		if p.RevokedAt != nil {
			return *p.RevokedAt
		}
	case Expired:
		if p.ExpiresAt != nil {
			return *p.ExpiresAt
		}
	default:
		return time.Time{}
	}
	return p.UpdatedAt
}

// filesDueKey is the page's row in the due index: nil unless it ended and has files.
func filesDueKey(p *Page) []byte {
	if p == nil || p.FileCount == 0 && p.FileBytes == 0 {
		return nil
	}
	at := endedAt(p)
	if at.IsZero() {
		return nil
	}
	return persistence.DueKey(at, p.ID)
}

// dueFiles lists pages that ended at or before endedBy and still have files (at
// most limit). err is a store that did not answer (nothing is due is no error).
func dueFiles(store *persistence.Store, endedBy time.Time, limit int) ([]string, error) {
	var out []string
	err := store.View(func(tx *persistence.Tx) error {
		for _, o := range tx.Due(bucketFilesDue, endedBy, limit) {
			out = append(out, o.ID)
		}
		return nil
	})
	return out, err
}

// RunFileRetention tells every page whose files' retention is over to drop them,
// every interval until stop closes (the first scan at once: a restart finds what
// fell due while the node was down).
func RunFileRetention(d *Deps, pages Teller, every time.Duration, stop <-chan struct{}) {
	told := map[string]time.Time{} // recently told, so a slow page is not flooded
	for {
		now := d.Now()
		due, err := dueFiles(d.Store, now.Add(-d.files().Retention), 1000)
		if err != nil && d.Log != nil { // the next round asks again
			d.Log.Warn("file retention: the store did not answer", "err", err)
		}
		for _, id := range due {
			if at, ok := told[id]; ok && now.Sub(at) < 5*time.Second {
				continue
			}
			told[id] = now
			pages.Tell(id, &DropFiles{})
		}
		for id, at := range told {
			if now.Sub(at) >= 5*time.Second {
				delete(told, id)
			}
		}
		t := time.NewTimer(every)
		select {
		case <-stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// dropFiles deletes the page's files when it ended at least the retention ago: the
// records, their index rows and the tenant's stored bytes in one commit (with a
// file.deleted event each and one audit entry), then the bytes. A crash between
// the two leaves bytes no record names, which the orphan sweep removes.
func (a *Actor) dropFiles() any {
	p := a.page
	if p == nil || filesDueKey(p) == nil {
		return nil
	}
	now := a.deps.Now().UTC()
	ended := endedAt(p)
	if now.Sub(ended) < a.deps.files().Retention {
		return nil
	}
	var files []*File
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketFiles, append([]byte(a.id), 0), false, func(_, v []byte) bool {
			if f := decodeFile(v); f != nil {
				files = append(files, f)
			}
			return true
		})
		return nil
	}); err != nil {
		return err
	}
	var bytes int64
	events := make([]Event, 0, len(files))
	for _, f := range files {
		bytes += f.SizeBytes
		events = append(events, a.event(now, fileDeleted{FileID: f.ID, Filename: f.Filename}))
	}
	next := p.clone()
	next.FileCount, next.FileBytes, next.Uploads = 0, 0, nil
	entry := audit.New("files.deleted", "system", a.id, now, map[string]any{
		"reason": "retention", "ended_at": ended, "files": len(files), "bytes": bytes})
	del := func(tx *persistence.Tx) error {
		for _, f := range files {
			if err := tx.Delete(bucketFiles, commentKey(a.id, f.Seq)); err != nil {
				return err
			}
			if err := tx.Delete(bucketFileIDs, commentIDKey(a.id, f.ID)); err != nil {
				return err
			}
			if err := tx.Delete(bucketFileKeys, []byte(f.StorageKey)); err != nil {
				return err
			}
		}
		return AddStored(tx, p.TenantID, StoredFiles, -bytes)
	}
	if err := a.applyWith(next, []audit.Entry{entry}, events, del); err != nil {
		return err
	}
	if a.deps.Blobs != nil {
		for _, f := range files {
			if err := a.deps.Blobs.Delete(f.StorageKey); err != nil && a.deps.Log != nil {
				a.deps.Log.Error("files: delete the bytes of a file past its retention", "storage_key", f.StorageKey, "err", err)
			}
		}
	}
	return nil
}
