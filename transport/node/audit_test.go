package node_test

import (
	"testing"

	"folio/persistence"
	"folio/transport/node/nodetest"
)

func TestAuditListingAndVerify(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("auditor")
	id := e.Publish(key, nil)
	for i := 0; i < 3; i++ {
		e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{text("more")}})
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	all := e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)
	if all["total"].(float64) != 7 || all["page"].(float64) != 1 || all["per_page"].(float64) != 50 {
		t.Fatalf("audit listing: total %v page %v per_page %v", all["total"], all["page"], all["per_page"])
	}
	want := []string{"page.created", "page.published", "blocks.appended", "blocks.appended", "blocks.appended", "action.executed", "page.completed"}
	for i, it := range all["items"].([]any) {
		m := it.(map[string]any)
		if m["event_type"] != want[i] || m["event_id"] == nil || m["timestamp"] == nil {
			t.Fatalf("item %d: %v", i, m)
		}
		if h, _ := m["chain_hash"].(string); len(h) != len("sha256:")+64 {
			t.Fatalf("chain_hash %q", h)
		}
	}
	p2 := e.Must(200, "GET", "/v1/pages/"+id+"/audit?page=2&per_page=3", key, nil)["items"].([]any)
	if len(p2) != 3 || p2[0].(map[string]any)["event_type"] != "blocks.appended" || p2[2].(map[string]any)["event_type"] != "action.executed" {
		t.Fatalf("page 2 of 3: %v", p2)
	}
	v := e.Must(200, "GET", "/v1/audit/verify", key, nil)
	if v["status"] != "valid" || v["chain_length"].(float64) != 7 || v["first_hash"] != all["items"].([]any)[0].(map[string]any)["chain_hash"] || v["verified_at"] == nil {
		t.Fatalf("verify: %v", v)
	}
}

func TestVerifyReportsAnEditedEntry(t *testing.T) {
	e := nodetest.New(t)
	key, tenant := e.Register("victim")
	id := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", key, nil)
	e.Close()
	// Edit the stored bytes of entry 3 (action.executed: reject -> approve) in the
	// store, as someone with access to the disk or the database would.
	s, err := persistence.OpenURL(e.Store, e.Dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *persistence.Tx) error {
		k := persistence.Key([]byte(tenant), persistence.U64(3))
		v := tx.Get("audit", k)
		for i := 0; i+6 <= len(v); i++ {
			if string(v[i:i+6]) == "reject" {
				copy(v[i:], "accept")
			}
		}
		return tx.Put("audit", k, v)
	})
	_ = s.Close()
	if err != nil {
		t.Fatal(err)
	}
	e = nodetest.Open(t, e.Dir, nil)
	v := e.Must(200, "GET", "/v1/audit/verify", key, nil)
	if v["status"] != "invalid" || v["first_invalid_sequence"].(float64) != 3 {
		t.Fatalf("verify after tampering: %v", v)
	}
}
