package page

import (
	"time"

	"folio/actors/registry"
	"folio/persistence"
)

// OrphanGrace is how long uploaded bytes may wait for their `complete` beyond the
// upload's own time (FileLimits.UploadTTL): a blob older than both that no file
// record names is swept. By then its reservation has expired, so it no longer
// counts against the page and can never be completed.
const OrphanGrace = 5 * time.Minute

// SweepOrphanBlobs removes blobs that no file record names and that are older than
// grace: uploads never completed (anyone holding a public page's link can presign
// and PUT, so without this they would fill the disk unbounded) and the bytes of a
// file whose record was deleted just before a crash. It returns how many it removed.
func SweepOrphanBlobs(store *persistence.Store, blobs *persistence.Blobs, now time.Time, grace time.Duration) (int, error) {
	var old []string
	if err := blobs.Walk(func(b persistence.StoredBlob) {
		if now.Sub(b.Modified) > grace {
			old = append(old, b.Name)
		}
	}); err != nil || len(old) == 0 {
		return 0, err
	}
	named := map[string]bool{}
	if err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketFileKeys, nil, false, func(k, _ []byte) bool {
			named[persistence.BlobName(string(k))] = true
			return true
		})
		return nil
	}); err != nil {
		return 0, err
	}
	removed := 0
	for _, name := range old {
		if named[name] {
			continue
		}
		if err := blobs.RemoveName(name); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// RunBlobSweep sweeps orphan blobs every interval until stop closes.
func RunBlobSweep(d *Deps, blobs *persistence.Blobs, every time.Duration, stop <-chan struct{}) {
	registry.Every(every, stop, func() {
		// Wall-clock time, not d.Now: blob ages come from file modification times.
		n, err := SweepOrphanBlobs(d.Store, blobs, time.Now(), d.files().UploadTTL+OrphanGrace)
		if err != nil && d.Log != nil {
			d.Log.Error("files: orphan blob sweep", "err", err)
		} else if n > 0 && d.Log != nil {
			d.Log.Info("files: swept orphan blobs", "removed", n)
		}
	})
}
