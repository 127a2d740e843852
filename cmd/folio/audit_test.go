package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/actors/auditlog"
	"folio/persistence"
)

// TestAuditVerifyCommand: folio audit verify passes an untouched export and
// names the first bad entry of one with an entry taken out, from files alone.
func TestAuditVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	s, err := persistence.Open(dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 1; i <= 12; i++ {
		if err := s.Update(func(tx *persistence.Tx) error {
			_, _, err := tx.AppendAudit("t_1", []byte(fmt.Sprintf(`{"event_type":"page.created","n":%d}`, i)))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	key, err := auditlog.LoadOrCreateKey(filepath.Join(dir, "audit.key"), "test/folio/audit", true)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := auditlog.New(s, key).Latest("t_1")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := auditlog.ReadPage(s, "t_1", 0, 100)
	var export bytes.Buffer
	_, _ = page.WriteTo(&export)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cpFile, exp := write("checkpoint", cp.Note), write("export.jsonl", export.Bytes())
	var out bytes.Buffer
	if err := runAudit([]string{"verify", "--key", filepath.Join(dir, "audit.key.pub"), "--checkpoint", cpFile, exp}, &out); err != nil {
		t.Fatalf("untouched export: %v", err)
	}
	if !strings.Contains(out.String(), "ok: test/folio/audit/t_1: 12 entries") {
		t.Fatalf("output: %s", out.String())
	}
	lines := strings.SplitAfter(export.String(), "\n")
	cut := write("cut.jsonl", []byte(strings.Join(append(lines[:4:4], lines[5:]...), "")))
	err = runAudit([]string{"verify", "--key", filepath.Join(dir, "audit.key.pub"), "--checkpoint", cpFile, cut}, &out)
	if err == nil || !strings.Contains(err.Error(), "first bad entry 5") {
		t.Fatalf("export without entry 5: %v", err)
	}
	if err := runAudit([]string{"verify", "--checkpoint", cpFile, exp}, &out); err == nil || !strings.Contains(err.Error(), "needs --key") {
		t.Fatalf("without --key: %v", err)
	}
}
