package foliomcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// KeyStore keeps the API key an MCP client was given when its account was
// provisioned, so the next run uses the same account.
type KeyStore interface {
	Load() (string, error) // "" when none is stored
	Save(key string) error
}

// FileKeys stores the key of one Folio server in a file readable only by its owner
// (0600), under dir (the user's config directory: os.UserConfigDir()/folio), one
// file per server address.
type FileKeys struct {
	Dir    string
	Server string // the server's base URL; "" for an embedded server on the data directory
}

func (f FileKeys) path() string {
	sum := sha256.Sum256([]byte(f.Server))
	return filepath.Join(f.Dir, "mcp-key-"+hex.EncodeToString(sum[:6]))
}

// Load reads the stored key ("" when there is none).
func (f FileKeys) Load() (string, error) {
	b, err := os.ReadFile(f.path())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(b)), err
}

// Save writes the key atomically with mode 0600 (the directory 0700).
func (f FileKeys) Save(key string) error {
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return err
	}
	tmp := f.path() + ".tmp"
	if err := os.WriteFile(tmp, []byte(key+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f.path())
}
