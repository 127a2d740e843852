package auditlog

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"folio/persistence"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// maxCached bounds the signed checkpoints kept in memory (one per tenant); past it
// the cache starts over, and a checkpoint is signed again when next asked for.
const maxCached = 4096

// Log signs the tenants' checkpoints with one key.
//
// A checkpoint is derived when asked for, from the tree of a read transaction, so
// it only ever names a tree that is committed (and on bbolt, fsynced). It is
// signed at most once per tenant and tree size: the cached note is handed out
// until the tree grows. Signing is therefore "after each batch of commits, when
// someone looks", never more often than a tree changes.
type Log struct {
	store *persistence.Store
	key   Key

	mu    sync.Mutex
	cache map[string]Checkpoint // tenant -> latest signed
}

// Checkpoint is a tenant's signed tree head.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
	Note   []byte // the note as signed: the text, a blank line, the signature line
	// SignedAt is when this server signed it (not part of the note).
	SignedAt time.Time
}

// New serves the checkpoints of store's trees signed with key.
func New(store *persistence.Store, key Key) *Log {
	return &Log{store: store, key: key, cache: map[string]Checkpoint{}}
}

// VerifierKey is the public key to pin, `name+hash+key`.
func (l *Log) VerifierKey() string { return l.key.Verifier }

// Origin is the log origin of tenant: the key's name, "/", the tenant id.
func (l *Log) Origin(tenant string) string { return l.key.Name() + "/" + tenant }

// Latest is tenant's checkpoint for its committed tree, signed now if the tree
// grew since the last one.
func (l *Log) Latest(tenant string) (Checkpoint, error) {
	size, root, err := l.store.AuditTree(tenant)
	if err != nil {
		return Checkpoint{}, err
	}
	if size == 0 {
		root = emptyRoot
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.cache[tenant]; ok && c.Size == size && c.Root == root {
		return c, nil
	}
	c := Checkpoint{Origin: l.Origin(tenant), Size: size, Root: root, SignedAt: time.Now().UTC()}
	signed, err := note.Sign(&note.Note{Text: formatCheckpoint(c.Origin, size, root)}, l.key.Signer)
	if err != nil {
		return Checkpoint{}, err
	}
	c.Note = signed
	if len(l.cache) >= maxCached {
		clear(l.cache)
	}
	l.cache[tenant] = c
	return c, nil
}

// emptyRoot is the root hash of the tree of no entries, SHA-256 of nothing
// (RFC 6962 §2.1).
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// formatCheckpoint is the checkpoint body of the C2SP tlog-checkpoint format:
// the origin, the tree size in decimal, the root hash in standard base64, each on
// a line of its own.
func formatCheckpoint(origin string, size int64, root tlog.Hash) string {
	return origin + "\n" + strconv.FormatInt(size, 10) + "\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n"
}

// ParseCheckpoint reads a checkpoint body (formatCheckpoint; extension lines after
// the root are allowed and ignored).
func ParseCheckpoint(text string) (origin string, size int64, root tlog.Hash, err error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return "", 0, root, errors.New("checkpoint: want origin, size and root hash on three lines")
	}
	size, err = strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return "", 0, root, fmt.Errorf("checkpoint: tree size %q is not a decimal count", lines[1])
	}
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return "", 0, root, fmt.Errorf("checkpoint: root hash %q is not 32 bytes of base64", lines[2])
	}
	copy(root[:], h)
	return lines[0], size, root, nil
}

// OpenCheckpoint checks a signed checkpoint against the verifier key vkey and
// returns what it says.
func OpenCheckpoint(signed []byte, vkey string) (origin string, size int64, root tlog.Hash, err error) {
	v, err := note.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return "", 0, root, fmt.Errorf("verifier key: %w", err)
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		return "", 0, root, fmt.Errorf("checkpoint signature: %w", err)
	}
	return ParseCheckpoint(n.Text)
}
