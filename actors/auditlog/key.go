// Package auditlog publishes the audit trees of the tenants (persistence's
// audit_tree.go) to people outside the server: signed checkpoints in the C2SP
// signed-note format, inclusion and consistency proofs, an export of the entries
// as JSON Lines, and the offline check of such an export against a checkpoint
// (VerifyExport), which needs no server and no store.
package auditlog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Key is the server's checkpoint signing key: a signer and its verifier key, the
// text `name+hash+base64(0x01||public key)` an auditor pins.
type Key struct {
	Signer   note.Signer
	Verifier string
}

// Name is the key's name; a tenant's log origin is Name + "/" + tenant id.
func (k Key) Name() string { return k.Signer.Name() }

// LoadOrCreateKey reads the signer key at path (the note format
// `PRIVATE+KEY+name+hash+key`, as note.GenerateKey writes it). When the file does
// not exist and create is set, it makes a new Ed25519 key named name, writes it
// with mode 0600 (never over an existing file: when another process made one at the
// same moment, that one is read), and the verifier key beside it in path + ".pub"
// for the operator to publish.
func LoadOrCreateKey(path, name string, create bool) (Key, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		skey, vkey, gerr := note.GenerateKey(rand.Reader, name)
		if gerr != nil {
			return Key{}, fmt.Errorf("audit key: %w", gerr)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return Key{}, fmt.Errorf("audit key: %w", err)
		}
		// Written whole to a file of its own, then linked into place: several nodes
		// starting at once on one data directory (folio cluster) agree on the one
		// key that was linked first, and none ever reads half a key.
		f, oerr := os.CreateTemp(filepath.Dir(path), ".audit-key-*")
		if oerr != nil {
			return Key{}, fmt.Errorf("audit key: %w", oerr)
		}
		defer func() { _ = os.Remove(f.Name()) }() // linked or not, the temporary name goes
		werr := f.Chmod(0o600)
		if werr == nil {
			_, werr = f.WriteString(skey + "\n")
		}
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return Key{}, fmt.Errorf("audit key: %w", werr)
		}
		if err := os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
			return LoadOrCreateKey(path, name, false) // another node made it first
		} else if err != nil {
			return Key{}, fmt.Errorf("audit key: %w", err)
		}
		if err := os.WriteFile(path+".pub", []byte(vkey+"\n"), 0o644); err != nil {
			return Key{}, fmt.Errorf("audit key: %w", err)
		}
		return parseKey(skey)
	}
	if err != nil {
		return Key{}, fmt.Errorf("audit key: %w", err)
	}
	k, err := parseKey(strings.TrimSpace(string(b)))
	if err != nil {
		return Key{}, fmt.Errorf("audit key %s: %w", path, err)
	}
	return k, nil
}

// parseKey reads a note signer key and derives its verifier key.
func parseKey(skey string) (Key, error) {
	signer, err := note.NewSigner(skey)
	if err != nil {
		return Key{}, fmt.Errorf("not a signed-note private key (PRIVATE+KEY+name+hash+key): %w", err)
	}
	// PRIVATE+KEY+name+hash+key: the name has no "+", the key (base64) may.
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 {
		return Key{}, errors.New("not a signed-note private key (PRIVATE+KEY+name+hash+key)")
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return Key{}, errors.New("not an Ed25519 signed-note private key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(signer.Name(), pub)
	if err != nil {
		return Key{}, err
	}
	return Key{Signer: signer, Verifier: vkey}, nil
}
