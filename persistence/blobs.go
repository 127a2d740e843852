package persistence

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Blobs stores uploaded files under <data>/blobs. A blob is named by the SHA-256 of
// its storage key (blobs/ab/abcdef…), so no key, however crafted, names a path
// outside the directory. Writes go to a temporary file that is fsynced and then
// linked into place, so a blob is either absent or complete, and a key is written
// at most once. It also signs the expiring addresses through which blobs are
// uploaded and downloaded (HMAC-SHA256 with a node secret kept in bbolt).
type Blobs struct {
	dir    string
	secret []byte
}

// ErrBlobExists is returned by Put when the key already holds a blob.
var ErrBlobExists = errors.New("persistence: blob exists")

// ErrBlobSize is returned by Put when the body is not exactly the announced size.
var ErrBlobSize = errors.New("persistence: blob size mismatch")

// errBlobMissing is returned for a key without a blob.
var errBlobMissing = errors.New("persistence: no such blob")

const bucketSecrets = "secrets" // name -> random bytes

// Secret returns the node secret called name, creating 32 random bytes on first use.
// Secrets survive restarts (signed addresses stay valid; salted hashes stay stable).
func (s *Store) Secret(name string) ([]byte, error) {
	var out []byte
	if err := s.View(func(tx *Tx) error {
		out = tx.Get(bucketSecrets, []byte(name))
		return nil
	}); err != nil {
		return nil, err // not "absent": a fresh secret would not be the stored one
	}
	if out != nil {
		return out, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	err := s.Update(func(tx *Tx) error {
		if existing := tx.Get(bucketSecrets, []byte(name)); existing != nil {
			out = existing
			return nil
		}
		out = fresh
		return tx.Put(bucketSecrets, []byte(name), fresh)
	})
	return out, err
}

// staleUpload is the age past which a temporary upload file is a crash's leftover:
// longer than any upload may take (transfers are cut at 10 minutes).
const staleUpload = time.Hour

// OpenBlobs opens (creating) <dir>/blobs and its signing secret.
func OpenBlobs(store *Store, dir string) (*Blobs, error) {
	root := filepath.Join(dir, "blobs")
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o750); err != nil {
		return nil, fmt.Errorf("persistence: create blob dir: %w", err)
	}
	secret, err := store.Secret("blob-signing")
	if err != nil {
		return nil, err
	}
	// Leftovers of uploads interrupted by a crash are never visible; clear them. The
	// directory may be shared by several nodes (docs/cluster.md), so only files
	// older than any upload in flight could be are removed.
	if entries, err := os.ReadDir(filepath.Join(root, "tmp")); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleUpload {
				_ = os.Remove(filepath.Join(root, "tmp", e.Name()))
			}
		}
	}
	return &Blobs{dir: root, secret: secret}, nil
}

func (b *Blobs) path(key string) string { return b.pathOf(BlobName(key)) }

func (b *Blobs) pathOf(name string) string { return filepath.Join(b.dir, name[:2], name) }

// BlobName is the on-disk name of key's blob (hex SHA-256 of the key).
func BlobName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// StoredBlob is one blob on disk as Walk sees it.
type StoredBlob struct {
	Name     string // BlobName of its key
	Modified time.Time
	Size     int64
}

// Walk lists every stored blob (temporary files excluded), in no particular order.
func (b *Blobs) Walk(fn func(StoredBlob)) error {
	dirs, err := os.ReadDir(b.dir)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue // "tmp" and anything not written by Put
		}
		files, err := os.ReadDir(filepath.Join(b.dir, d.Name()))
		if err != nil {
			return err
		}
		for _, f := range files {
			name := f.Name()
			if len(name) != sha256.Size*2 || !strings.HasPrefix(name, d.Name()) {
				continue
			}
			if info, err := f.Info(); err == nil && info.Mode().IsRegular() {
				fn(StoredBlob{Name: name, Modified: info.ModTime(), Size: info.Size()})
			}
		}
	}
	return nil
}

// RemoveName deletes the blob called name (a BlobName; absent is fine).
func (b *Blobs) RemoveName(name string) error {
	if len(name) != sha256.Size*2 || strings.Trim(name, "0123456789abcdef") != "" {
		return fmt.Errorf("persistence: %q is not a blob name", name)
	}
	err := os.Remove(b.pathOf(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Put stores exactly size bytes from r under key. Nothing is visible under key
// until all of them are durable; a second Put of the same key is ErrBlobExists; a
// body shorter or longer than size is ErrBlobSize (and nothing is stored).
func (b *Blobs) Put(key string, r io.Reader, size int64) error {
	final := b.path(key)
	if _, err := os.Stat(final); err == nil {
		return ErrBlobExists
	}
	tmp, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "up-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	n, err := io.Copy(tmp, io.LimitReader(r, size))
	if err == nil && n != size {
		err = ErrBlobSize
	}
	if err == nil {
		var probe [1]byte
		if m, _ := io.ReadFull(r, probe[:]); m > 0 {
			err = ErrBlobSize
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o750); err != nil {
		return err
	}
	// Link, not rename: it fails when the key already holds a blob (a concurrent
	// upload won), so a stored blob is never replaced.
	if err := os.Link(tmp.Name(), final); err != nil {
		if errors.Is(err, os.ErrExist) {
			return ErrBlobExists
		}
		return err
	}
	if d, err := os.Open(filepath.Dir(final)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Size is the stored size of key's blob (errBlobMissing when none).
func (b *Blobs) Size(key string) (int64, error) {
	fi, err := os.Stat(b.path(key))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, errBlobMissing
		}
		return 0, err
	}
	return fi.Size(), nil
}

// Open opens key's blob for reading (errBlobMissing when none).
func (b *Blobs) Open(key string) (*os.File, error) {
	f, err := os.Open(b.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errBlobMissing
	}
	return f, err
}

// Delete removes key's blob (absent is fine).
func (b *Blobs) Delete(key string) error {
	err := os.Remove(b.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Sign makes a token for purpose (e.g. "put", "get") over key and extra values,
// valid until expires: "<unix seconds>.<hex HMAC>".
func (b *Blobs) Sign(purpose, key string, expires time.Time, extra ...string) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return exp + "." + b.mac(purpose, key, exp, extra)
}

// Verify checks a token made by Sign for the same purpose, key and extra values and
// that it has not expired at now.
func (b *Blobs) Verify(token, purpose, key string, now time.Time, extra ...string) bool {
	exp, mac, ok := strings.Cut(token, ".")
	if !ok || len(exp) == 0 || len(exp) > 19 {
		return false
	}
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || now.Unix() > secs {
		return false
	}
	want := b.mac(purpose, key, exp, extra)
	return hmac.Equal([]byte(mac), []byte(want))
}

func (b *Blobs) mac(purpose, key, exp string, extra []string) string {
	m := hmac.New(sha256.New, b.secret)
	for _, part := range append([]string{purpose, key, exp}, extra...) {
		m.Write([]byte(strconv.Itoa(len(part))))
		m.Write([]byte{':'})
		m.Write([]byte(part))
	}
	return hex.EncodeToString(m.Sum(nil))
}
