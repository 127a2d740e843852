package realtime_test

import (
	"testing"

	"folio/actors/tenant"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestAnonymousUploadsAreBoundedPerAddressAcrossTenants: bytes presigned without a
// credential are counted per client address across every page and tenant
// (--anon-upload-bytes-per-hour): past the budget a presign is 429 naming
// anonymous_upload_bytes (scope address) and saying that signing in lifts it; the
// pages' own keys upload on.
func TestAnonymousUploadsAreBoundedPerAddressAcrossTenants(t *testing.T) {
	const budget, size = 1 << 20, 400 << 10
	e := nodetest.New(t, func(c *node.Config) {
		c.EnforceLimits, c.AnonPerMinute, c.AnonUploadBytesPerHour = true, 1000, budget
	})
	k1, _ := e.Register("one")
	k2, _ := e.Register("two")
	a, b := e.Publish(k1, nil), e.Publish(k2, nil)
	body := map[string]any{"filename": "big.bin", "size_bytes": size}
	presign(t, e, "", a, body)
	presign(t, e, "", b, body)
	r := e.Do("POST", "/v1/pages/"+a+"/files/presign", "", body)
	d := r.ErrDetails(t)
	if r.Status != 429 || d["limit"] != "anonymous_upload_bytes" || d["scope"] != "address" || d["per_window"] != float64(budget) || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the third anonymous %d-byte presign from one address (budget %d): %d %s", size, budget, r.Status, r.Body)
	}
	presign(t, e, k1, a, body)
	presign(t, e, k2, b, body)
}

// TestStorageQuotaRefusesTheUploadThatWouldPassIt: a workspace's stored bytes
// (files and its agent event log) are in GET /v1/tenant's usage against its plan's
// storage quota; the upload that would pass the quota is refused at presign, and
// at complete (where it is exact, in the commit), with 413 naming storage_bytes and
// saying what to do; deleting a file gives its bytes back.
func TestStorageQuotaRefusesTheUploadThatWouldPassIt(t *testing.T) {
	const limit = 256 << 10
	e := nodetest.New(t, func(c *node.Config) {
		c.EnforceLimits = true
		c.PlanLimits = map[string]tenant.Plan{"free": {RequestsPerMinute: 0, PagesPerMonth: 0, StorageBytes: limit}}
	})
	key, _ := e.Register("quota")
	id := e.Publish(key, nil)
	usage := func() map[string]any { return e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any) }
	u := usage()
	if u["storage_limit_bytes"] != float64(limit) || u["stored_event_bytes"].(float64) <= 0 || u["stored_file_bytes"] != float64(0) {
		t.Fatalf("usage before any file: %v", u)
	}
	first := upload(t, e, key, id, "a.bin", make([]byte, 100<<10))
	u = usage()
	if u["stored_file_bytes"] != float64(100<<10) || u["stored_bytes"] != u["stored_file_bytes"].(float64)+u["stored_event_bytes"].(float64) {
		t.Fatalf("usage after a 100 KiB file: %v", u)
	}
	// Two presigns that each fit alone; together they pass the quota: the second
	// completion is refused in its commit.
	p1 := presign(t, e, key, id, map[string]any{"filename": "b.bin", "size_bytes": 100 << 10})
	r := e.Do("POST", "/v1/pages/"+id+"/files/presign", key, map[string]any{"filename": "c.bin", "size_bytes": 100 << 10})
	if r.Status != 413 || r.ErrCode(t) != "PAYLOAD_TOO_LARGE" || r.ErrDetails(t)["limit"] != "storage_bytes" {
		t.Fatalf("a presign past the quota (with the page's upload in flight): %d %s", r.Status, r.Body)
	}
	e.Must(200, "PUT", p1["uploadUrl"].(string), "", make([]byte, 100<<10))
	e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": p1["storageKey"]})
	p2 := presign(t, e, key, id, map[string]any{"filename": "d.bin", "size_bytes": 20 << 10})
	e.Must(200, "PUT", p2["uploadUrl"].(string), "", make([]byte, 20<<10))
	// Grow the event log past what is left, so only the commit's check can refuse.
	for i := 0; usage()["stored_bytes"].(float64)+20<<10 <= limit; i++ {
		if i == 500 {
			t.Fatalf("the event log did not grow with comments: %v", usage())
		}
		e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "making the event log grow a little with every comment"})
	}
	r = e.Do("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": p2["storageKey"]})
	if r.Status != 413 || r.ErrDetails(t)["limit"] != "storage_bytes" || r.ErrDetails(t)["storage_limit_bytes"] != float64(limit) {
		t.Fatalf("a completion past the quota: %d %s", r.Status, r.Body)
	}
	e.Must(204, "DELETE", "/v1/pages/"+id+"/files/"+first, key, nil)
	if u := usage(); u["stored_file_bytes"] != float64(100<<10) {
		t.Fatalf("usage after deleting a 100 KiB file of two: %v", u)
	}
	e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": p2["storageKey"]})
}
