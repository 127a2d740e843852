package persistence

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openBlobs(t *testing.T) (*Blobs, *Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	b, err := OpenBlobs(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	return b, s, dir
}

// failingReader yields some bytes and then an error (a client that went away).
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.n)
	f.n -= n
	return n, nil
}

// TestBlobPutIsAllOrNothing: a blob appears only complete and only once; short,
// long and failed bodies leave nothing behind (not even temporary files).
func TestBlobPutIsAllOrNothing(t *testing.T) {
	b, _, dir := openBlobs(t)
	key := "ten/pg/1_a.txt"
	if err := b.Put(key, strings.NewReader("abc"), 4); !errors.Is(err, ErrBlobSize) {
		t.Fatalf("short body: %v", err)
	}
	if err := b.Put(key, strings.NewReader("abcde"), 4); !errors.Is(err, ErrBlobSize) {
		t.Fatalf("long body: %v", err)
	}
	if err := b.Put(key, &failingReader{n: 2}, 4); err == nil {
		t.Fatal("failed body stored")
	}
	if _, err := b.Size(key); !errors.Is(err, errBlobMissing) {
		t.Fatalf("after failures: %v", err)
	}
	if err := b.Put(key, strings.NewReader("abcd"), 4); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(key, strings.NewReader("wxyz"), 4); !errors.Is(err, ErrBlobExists) {
		t.Fatalf("second put: %v", err)
	}
	f, err := b.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, []byte("abcd")) {
		t.Fatalf("content %q", got)
	}
	if n, _ := b.Size(key); n != 4 {
		t.Fatalf("size %d", n)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "blobs", "tmp")); len(left) != 0 {
		t.Fatalf("temporary files left: %d", len(left))
	}
	if err := b.Delete(key); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(key); err != nil {
		t.Fatal("second delete:", err)
	}
	if _, err := b.Open(key); !errors.Is(err, errBlobMissing) {
		t.Fatalf("after delete: %v", err)
	}
}

// TestBlobPathsStayInsideTheDirectory: any key, however crafted, names a file under
// blobs/ (a hash), never a path derived from the key.
func TestBlobPathsStayInsideTheDirectory(t *testing.T) {
	b, _, dir := openBlobs(t)
	for _, key := range []string{"../../etc/passwd", "/etc/passwd", "a/../../b", "..", "\x00"} {
		p := b.path(key)
		rel, err := filepath.Rel(filepath.Join(dir, "blobs"), p)
		if err != nil || strings.HasPrefix(rel, "..") || strings.Contains(filepath.Base(p), ".") {
			t.Fatalf("key %q -> %s", key, p)
		}
	}
}

// TestWalkAndRemoveByName: Walk sees stored blobs (by BlobName, not temporary
// files); RemoveName deletes one and refuses anything that is not a blob name.
func TestWalkAndRemoveByName(t *testing.T) {
	b, _, dir := openBlobs(t)
	if err := b.Put("t/p/1_a.txt", strings.NewReader("abc"), 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blobs", "tmp", "partial"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen []StoredBlob
	if err := b.Walk(func(s StoredBlob) { seen = append(seen, s) }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Name != BlobName("t/p/1_a.txt") || seen[0].Size != 3 {
		t.Fatalf("walk saw %+v", seen)
	}
	for _, bad := range []string{"../../etc/passwd", "tmp", strings.Repeat("g", 64), ""} {
		if err := b.RemoveName(bad); err == nil {
			t.Errorf("RemoveName(%q) accepted", bad)
		}
	}
	if err := b.RemoveName(seen[0].Name); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open("t/p/1_a.txt"); err != errBlobMissing {
		t.Fatalf("after RemoveName: %v", err)
	}
}

// TestSignedTokens: a token verifies for exactly its purpose, key, extras and
// lifetime; the secret survives a restart.
func TestSignedTokens(t *testing.T) {
	b, s, dir := openBlobs(t)
	now := time.Unix(1700000000, 0)
	tok := b.Sign("put", "k", now.Add(time.Minute), "10")
	if !b.Verify(tok, "put", "k", now, "10") {
		t.Fatal("valid token refused")
	}
	for name, ok := range map[string]bool{
		"purpose": b.Verify(tok, "get", "k", now, "10"),
		"key":     b.Verify(tok, "put", "k2", now, "10"),
		"extra":   b.Verify(tok, "put", "k", now, "11"),
		"expired": b.Verify(tok, "put", "k", now.Add(2*time.Minute), "10"),
		"mac":     b.Verify(flipLast(tok), "put", "k", now, "10"),
		"expiry":  b.Verify("9"+tok, "put", "k", now, "10"),
		"empty":   b.Verify("", "put", "k", now, "10"),
		"garbage": b.Verify("abc.def", "put", "k", now, "10"),
	} {
		if ok {
			t.Errorf("tampered %s accepted", name)
		}
	}
	// Restart: the same secret, so old tokens stay valid.
	secret := append([]byte(nil), b.secret...)
	s2 := s
	b2, err := OpenBlobs(s2, dir)
	if err != nil || !bytes.Equal(b2.secret, secret) || !b2.Verify(tok, "put", "k", now, "10") {
		t.Fatalf("secret not stable: %v", err)
	}
}

func flipLast(s string) string {
	if s[len(s)-1] == '0' {
		return s[:len(s)-1] + "1"
	}
	return s[:len(s)-1] + "0"
}

// TestOpeningClearsOnlyStaleUploads: several nodes may share the blob directory, so
// a node starting clears the temporary files of uploads a crash left behind (older
// than any upload may take) and leaves those of uploads in flight elsewhere.
func TestOpeningClearsOnlyStaleUploads(t *testing.T) {
	_, s, dir := openBlobs(t)
	tmp := filepath.Join(dir, "blobs", "tmp")
	for _, name := range []string{"crashed", "in-flight"} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleUpload)
	if err := os.Chtimes(filepath.Join(tmp, "crashed"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBlobs(s, dir); err != nil { // another node starting on the same directory
		t.Fatal(err)
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 1 || left[0].Name() != "in-flight" {
		t.Fatalf("after a node started: %v, want only the upload in flight", left)
	}
}
