package node_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"folio/actors/auditlog"
	"folio/actors/page"
	"folio/persistence"
	"folio/transport/node/nodetest"

	"golang.org/x/mod/sumdb/tlog"
)

// TestAuditProofsOverHTTP: the key, the checkpoint, the export and both proofs
// as an auditor fetches them, each checked the way the guide says, and the
// parameters refused naming themselves.
func TestAuditProofsOverHTTP(t *testing.T) {
	e := nodetest.New(t)
	key, tenant := e.Register("auditor")
	id := e.Publish(key, nil)

	vkey := e.Do("GET", "/v1/audit/key", "", nil) // public
	if vkey.Status != 200 || !strings.HasPrefix(vkey.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("key: %d %s", vkey.Status, vkey.Body)
	}
	cp1 := e.Do("GET", "/v1/audit/checkpoint", key, nil)
	origin, size1, root1, err := auditlog.OpenCheckpoint(cp1.Body, string(vkey.Body))
	if cp1.Status != 200 || err != nil || !strings.HasSuffix(origin, "/folio/audit/"+tenant) || size1 != 2 {
		t.Fatalf("checkpoint 1: %d %v %q size %d\n%s", cp1.Status, err, origin, size1, cp1.Body)
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	cp2 := e.Do("GET", "/v1/audit/checkpoint", key, nil)
	_, size2, root2, err := auditlog.OpenCheckpoint(cp2.Body, string(vkey.Body))
	if err != nil || size2 != 4 {
		t.Fatalf("checkpoint 2: %v size %d", err, size2)
	}

	var cons auditlog.Consistency
	decodeProof(t, e.Do("GET", "/v1/audit/proof/consistency?from=2&to=4", key, nil), &cons)
	if err := tlog.CheckTree(cons.Proof, size2, root2, size1, root1); err != nil {
		t.Fatalf("consistency proof between the checkpoints: %v", err)
	}
	var inc auditlog.Inclusion
	decodeProof(t, e.Do("GET", "/v1/audit/proof/inclusion?entry=3", key, nil), &inc)

	export := e.Do("GET", "/v1/audit/export", key, nil)
	if export.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("export: %d %q", export.Status, export.Header.Get("Content-Type"))
	}
	lines := bytes.Split(bytes.TrimSpace(export.Body), []byte("\n"))
	var third auditlog.ExportLine
	if err := json.Unmarshal(lines[2], &third); err != nil || len(lines) != 4 {
		t.Fatalf("export of %d lines: %v", len(lines), err)
	}
	if inc.Size != 4 || tlog.CheckRecord(inc.Proof, size2, root2, 2, tlog.RecordHash(third.Bytes())) != nil {
		t.Fatalf("entry 3 (%s) is not proven in checkpoint 2: %+v", third.Bytes(), inc)
	}
	rep, err := auditlog.VerifyExport(bytes.NewReader(export.Body), string(vkey.Body), [][]byte{cp1.Body, cp2.Body})
	if err != nil || !rep.Valid || rep.Entries != 4 {
		t.Fatalf("offline check of the export: %+v %v", rep, err)
	}
	page := e.Do("GET", "/v1/audit/export?after=1&limit=2", key, nil)
	if got := bytes.Split(bytes.TrimSpace(page.Body), []byte("\n")); len(got) != 2 || !bytes.Equal(got[0], lines[1]) {
		t.Fatalf("export page after=1 limit=2: %s", page.Body)
	}

	for _, c := range []struct{ path, field string }{
		{"/v1/audit/proof/inclusion", "entry"},
		{"/v1/audit/proof/inclusion?entry=x", "entry"},
		{"/v1/audit/proof/inclusion?entry=0", "entry"},
		{"/v1/audit/proof/inclusion?entry=5", "entry"},
		{"/v1/audit/proof/inclusion?entry=1&size=9", "size"},
		{"/v1/audit/proof/consistency", "from"},
		{"/v1/audit/proof/consistency?from=3&to=2", "from"},
		{"/v1/audit/proof/consistency?from=1&to=5", "to"},
		{"/v1/audit/export?limit=10001", "limit"},
		{"/v1/audit/export?after=-1", "after"},
	} {
		r := e.Do("GET", c.path, key, nil)
		if r.Status != 400 || r.ErrDetails(t)["field"] != c.field {
			t.Errorf("GET %s: %d %s, want 400 naming %s", c.path, r.Status, r.Body, c.field)
		}
	}
	e.Must(401, "GET", "/v1/audit/checkpoint", "", nil)
}

func decodeProof(t *testing.T, r nodetest.Response, v any) {
	t.Helper()
	if r.Status != 200 || json.Unmarshal(r.Body, v) != nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestRewrittenChainFailsAgainstAnEarlierCheckpoint: someone with access to the
// store changes a decision (reject -> accept) and rebuilds the chain after it, so
// that /v1/audit/verify still says valid; the export no longer matches the
// checkpoint an auditor kept from before, and the offline check says so.
func TestRewrittenChainFailsAgainstAnEarlierCheckpoint(t *testing.T) {
	e := nodetest.New(t)
	key, tenant := e.Register("victim")
	id := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", key, nil)
	vkey := string(e.Do("GET", "/v1/audit/key", "", nil).Body)
	kept := e.Do("GET", "/v1/audit/checkpoint", key, nil).Body
	e.Close()

	s, err := persistence.OpenURL(e.Store, e.Dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *persistence.Tx) error {
		prev := ""
		for seq := uint64(1); ; seq++ {
			k := persistence.Key([]byte(tenant), persistence.U64(seq))
			r, ok := tx.AuditRecordAt(tenant, seq)
			if !ok {
				return tx.Put("audit_head", []byte(tenant), append(persistence.U64(seq-1), prev...))
			}
			entry := bytes.ReplaceAll(r.Entry, []byte(`"reject"`), []byte(`"accept"`))
			hash := persistence.ChainHash(prev, entry)
			if err := tx.Put("audit", k, rawRecord(seq, prev, hash, entry)); err != nil {
				return err
			}
			prev = hash
		}
	})
	_ = s.Close()
	if err != nil {
		t.Fatal(err)
	}
	e = nodetest.Open(t, e.Dir, nil)
	if v := e.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
		t.Fatalf("the rebuilt chain should pass the server's chain check: %v", v)
	}
	export := e.Do("GET", "/v1/audit/export", key, nil).Body
	if !bytes.Contains(export, []byte(`"accept"`)) {
		t.Fatalf("the tampering did not take: %s", export)
	}
	rep, err := auditlog.VerifyExport(bytes.NewReader(export), vkey, [][]byte{kept})
	if err != nil || rep.Valid || rep.FirstBad != 1 || !strings.Contains(rep.Reason, "do not match the signed checkpoint") {
		t.Fatalf("offline check of the rewritten log: %+v %v", rep, err)
	}
	// The stored tree kept the original leaves: the server's next checkpoint still
	// has the kept root, so it does not vouch for the rewritten entries either.
	_, _, root, _ := auditlog.OpenCheckpoint(e.Do("GET", "/v1/audit/checkpoint", key, nil).Body, vkey)
	_, _, keptRoot, _ := auditlog.OpenCheckpoint(kept, vkey)
	if root != keptRoot {
		t.Fatalf("the tree changed with the chain: %s", base64.StdEncoding.EncodeToString(root[:]))
	}
}

// rawRecord is the stored layout of an audit record (persistence/audit.go).
func rawRecord(seq uint64, prev, hash string, entry []byte) []byte {
	b := []byte{1}
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint16(b, uint16(len(prev)))
	b = append(b, prev...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(hash)))
	b = append(b, hash...)
	return append(b, entry...)
}

// TestAgentEventsCarryTheDecisionsReceipt: the agent's action.executed event
// (its inbox, as the stream sent it) carries the receipt of the audit entry that
// recorded the decision, and it verifies against the next checkpoint.
func TestAgentEventsCarryTheDecisionsReceipt(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("agent")
	id := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"comment": "fine"})
	var inbox struct {
		Events []struct {
			Type string `json:"type"`
			Data struct {
				Receipt *page.Receipt `json:"receipt"`
			} `json:"data"`
		} `json:"events"`
	}
	decodeProof(t, e.Do("GET", "/v1/agent/inbox", key, nil), &inbox)
	var r *page.Receipt
	for _, it := range inbox.Events {
		if it.Type == "action.executed" {
			r = it.Data.Receipt
		}
	}
	if r == nil || r.Entry != 3 || r.Checkpoint != nil || r.ProofURL != "/v1/audit/proof/inclusion?entry=3" {
		t.Fatalf("the agent's action.executed carries receipt %+v", r)
	}
	vkey := string(e.Do("GET", "/v1/audit/key", "", nil).Body)
	cp := e.Do("GET", "/v1/audit/checkpoint", key, nil).Body
	var inc auditlog.Inclusion
	decodeProof(t, e.Do("GET", r.ProofURL, key, nil), &inc)
	if checked, err := auditlog.VerifyReceipt(*r, vkey, cp, &inc); err != nil || len(checked) != 4 {
		t.Fatalf("the agent event's receipt: %v (held: %q)", err, checked)
	}
}
