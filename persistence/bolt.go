package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// errAbort rolls back a bbolt group transaction when one of its functions failed.
var errAbort = errors.New("persistence: batch aborted")

// The file is mapped and grown in large steps. Growing the map past its size makes
// the writer wait until every open read transaction has ended, stalls new ones
// meanwhile, and faults the whole file in again; growing the file costs a
// truncate and an fsync inside a commit. A map of 1 GiB (address space only, not
// memory) and 64 MiB file steps keep both rare under load.
const (
	initialMmap = 1 << 30
	allocSize   = 64 << 20
)

// fillPercent is how full bbolt packs the pages it splits. Nearly every key Folio
// writes grows at the right edge (time-ordered ids, sequence numbers, time-keyed
// indexes), where bbolt's default of one half leaves every page half empty, so
// twice the pages are written and kept.
const fillPercent = 0.9

// boltEngine is one bbolt file, dir/folio.db.
type boltEngine struct{ db *bolt.DB }

func openBolt(dir string) (*boltEngine, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("persistence: create data dir: %w", err)
	}
	path := filepath.Join(dir, "folio.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:         2 * time.Second,
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: initialMmap,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		// bbolt holds an exclusive file lock: the one way to get here is a second
		// process on the same data directory, so the message names the way out.
		return nil, fmt.Errorf("persistence: open %s: %w: another folio process is using this data directory; stop it, or give this one its own with --data DIR (and --addr HOST:PORT)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("persistence: open %s: %w", path, err)
	}
	db.AllocSize = allocSize
	return &boltEngine{db: db}, nil
}

// commit runs the group in one bbolt transaction; when a function fails the
// transaction is rolled back and the rest are run again without it, so its writes
// never reach the file and one bad write never sinks the others.
func (e *boltEngine) commit(fns []func(*Tx) error, errs []error) (int, error) {
	live := make([]int, len(fns)) // indexes of the functions still in the group
	for i := range live {
		live[i] = i
	}
	for len(live) > 0 {
		failed, ferr := -1, error(nil)
		err := e.db.Update(func(btx *bolt.Tx) error {
			for j, i := range live {
				if err := runSafely(fns[i], &Tx{t: boltTx{btx}}); err != nil {
					failed, ferr = j, err
					return errAbort
				}
			}
			return nil
		})
		if err == nil {
			return 1, nil
		}
		if failed < 0 { // the commit itself failed (disk): nobody is acknowledged
			return 0, err
		}
		errs[live[failed]] = ferr
		live = append(live[:failed:failed], live[failed+1:]...)
	}
	return 0, nil // every function failed: nothing to commit
}

func (e *boltEngine) view(fn func(*Tx) error) error {
	return e.db.View(func(btx *bolt.Tx) error {
		tx := &Tx{t: boltTx{btx}}
		err := fn(tx)
		if tx.err != nil {
			return tx.err
		}
		return err
	})
}

func (e *boltEngine) get(bucket string, key []byte) (v []byte, err error) {
	err = e.db.View(func(btx *bolt.Tx) error {
		v, err = boltTx{btx}.get(bucket, key)
		return err
	})
	return v, err
}

func (e *boltEngine) close() error { return e.db.Close() }

func (e *boltEngine) shared() bool { return false }

// boltTx is a bbolt transaction; a bucket is created on its first write.
type boltTx struct{ btx *bolt.Tx }

func (t boltTx) bucket(name string) *bolt.Bucket {
	b := t.btx.Bucket([]byte(name))
	if b == nil && t.btx.Writable() {
		b, _ = t.btx.CreateBucketIfNotExists([]byte(name))
	}
	if b != nil && t.btx.Writable() {
		b.FillPercent = fillPercent
	}
	return b
}

func (boltTx) prefetch([]Read) error { return nil }

func (t boltTx) get(bucket string, key []byte) ([]byte, error) {
	b := t.bucket(bucket)
	if b == nil {
		return nil, nil
	}
	v := b.Get(key)
	if v == nil {
		return nil, nil
	}
	return append([]byte(nil), v...), nil
}

func (t boltTx) put(bucket string, key, value []byte) error {
	return t.bucket(bucket).Put(key, value)
}

func (t boltTx) delete(bucket string, key []byte) error {
	b := t.bucket(bucket)
	if b == nil {
		return nil
	}
	return b.Delete(key)
}

func (t boltTx) scan(bucket string, from, to []byte, reverse bool, fn func(k, v []byte) bool) error {
	b := t.bucket(bucket)
	if b == nil {
		return nil
	}
	c := b.Cursor()
	inRange := func(k []byte) bool {
		return k != nil && bytes.Compare(k, from) >= 0 && (to == nil || bytes.Compare(k, to) < 0)
	}
	if !reverse {
		for k, v := c.Seek(from); inRange(k); k, v = c.Next() {
			if !fn(k, v) {
				return nil
			}
		}
		return nil
	}
	var k, v []byte
	if to == nil {
		k, v = c.Last()
	} else if first, _ := c.Seek(to); first == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; inRange(k); k, v = c.Prev() {
		if !fn(k, v) {
			return nil
		}
	}
	return nil
}

func (t boltTx) nextSequence(bucket string) (uint64, error) {
	return t.bucket(bucket).NextSequence()
}

func (t boltTx) sequence(bucket string) (uint64, error) {
	b := t.bucket(bucket)
	if b == nil {
		return 0, nil
	}
	return b.Sequence(), nil
}
