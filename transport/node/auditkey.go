package node

import (
	"net/url"
	"path/filepath"

	"folio/actors/auditlog"
	"folio/persistence"
)

// auditLog signs the checkpoints of store's audit trees; nil when the node keeps
// none (Config.NoAuditTree): the proof routes then answer 503.
func auditLog(cfg Config, store *persistence.Store, key auditlog.Key) *auditlog.Log {
	if cfg.NoAuditTree {
		return nil
	}
	return auditlog.New(store, key)
}

// openAuditKey loads the checkpoint signing key cfg names, or the node's own under
// its data directory, created on first start. Nodes sharing one --store must be
// given the same key (--audit-key-file), or each signs with its own.
func openAuditKey(cfg Config) (auditlog.Key, error) {
	if cfg.AuditKeyFile != "" {
		return auditlog.LoadOrCreateKey(cfg.AuditKeyFile, "", false)
	}
	host := "folio"
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return auditlog.LoadOrCreateKey(filepath.Join(cfg.DataDir, "audit.key"), host+"/folio/audit", true)
}
