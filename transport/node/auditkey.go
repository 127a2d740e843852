package node

import (
	"net/url"
	"path/filepath"

	"folio/actors/auditlog"
)

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
