package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"folio/persistence"
	"folio/persistence/pgtest"
	"folio/transport/node/nodetest/ports"
)

// uploadFile presigns, PUTs size bytes and completes a file on page id with key
// ("" uploads anonymously). It returns the status and body of the step that
// answered last (a refused presign stops there) and the storage key.
func (p *proc) uploadFile(key, id string, size int) (int, map[string]any, string, error) {
	st, pre, err := p.call("POST", "/v1/pages/"+id+"/files/presign", key, map[string]any{"filename": "f.bin", "size_bytes": size, "uploaded_by": "test"})
	if err != nil || st != 200 {
		return st, pre, "", err
	}
	req, _ := http.NewRequest("PUT", p.base+pre["uploadUrl"].(string), bytes.NewReader(make([]byte, size)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		return res.StatusCode, nil, "", nil
	}
	sk := pre["storageKey"].(string)
	st, f, err := p.call("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": sk})
	return st, f, sk, err
}

// usage is GET /v1/tenant's usage object.
func (p *proc) usage(t *testing.T, key string) map[string]any {
	t.Helper()
	st, m, err := p.call("GET", "/v1/tenant", key, nil)
	if err != nil || st != 200 {
		t.Fatalf("GET /v1/tenant: %d %v", st, err)
	}
	u, _ := m["usage"].(map[string]any)
	return u
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// listedBytes sums the sizes of the files the pages list.
func (p *proc) listedBytes(t *testing.T, key string, pages []string) (int64, int) {
	t.Helper()
	var sum int64
	n := 0
	for _, id := range pages {
		st, m, err := p.call("GET", "/v1/pages/"+id+"/files", key, nil)
		if err != nil || st != 200 {
			t.Fatalf("list files of %s: %d %v", id, st, err)
		}
		for _, f := range m["files"].([]any) {
			sum += num(f.(map[string]any)["sizeBytes"])
			n++
		}
	}
	return sum, n
}

// TestStorageQuotaHoldsUnderConcurrencyAndKill9: a free workspace's stored bytes
// (files and its agent event log) are counted in the commits that store them, so
// after kill -9 in the middle of concurrent uploads the count equals the files the
// pages list; and the upload that would take the workspace past its plan's storage
// quota is refused (413, details.limit storage_bytes, a message saying what to do)
// while every one before it passes: concurrent uploads fill the quota and never
// pass it. GET /v1/tenant shows stored_bytes against storage_limit_bytes.
// It runs on each store: bbolt, and PostgreSQL (serializable commits that may
// re-run) on a server the test starts.
func TestStorageQuotaHoldsUnderConcurrencyAndKill9(t *testing.T) {
	t.Run("bolt", func(t *testing.T) { storageQuotaHoldsUnderConcurrencyAndKill9(t, nil) })
	t.Run("postgres", func(t *testing.T) { storageQuotaHoldsUnderConcurrencyAndKill9(t, []string{"--store", pgtest.URL(t)}) })
}

func storageQuotaHoldsUnderConcurrencyAndKill9(t *testing.T, store []string) {
	const limit, size = 3 << 20, 64 << 10
	dir, addr := t.TempDir(), ports.Free(t)
	flags := append([]string{"--default-plan", "free", "--plan", fmt.Sprintf("free=0/0/%d", limit)}, store...)
	p := start(t, dir, addr, flags...)
	_, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "quota-test"})
	if err != nil || reg["apiKey"] == nil {
		t.Fatalf("register: %v %v", reg, err)
	}
	key := reg["apiKey"].(string)
	var pages []string
	for i := 0; i < 4; i++ {
		st, m, err := p.call("POST", "/v1/publish", key, publishBody(i))
		if err != nil || st != 201 {
			t.Fatalf("publish: %d %v", st, err)
		}
		pages = append(pages, m["pageId"].(string))
	}
	u := p.usage(t, key)
	if num(u["storage_limit_bytes"]) != limit || num(u["stored_event_bytes"]) <= 0 || num(u["stored_file_bytes"]) != 0 {
		t.Fatalf("usage before any upload: %v (want the limit, the event log counted, no files)", u)
	}

	// Uploads on 8 connections; kill -9 once 10 are acknowledged, mid-flight.
	var acked atomic.Int64
	ten := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				st, _, _, err := p.uploadFile(key, pages[w%len(pages)], size)
				if err != nil || st != 201 {
					return
				}
				if acked.Add(1) >= 10 {
					once.Do(func() { close(ten) })
				}
			}
		}(w)
	}
	select {
	case <-ten:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d uploads acknowledged in 30 s", acked.Load())
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	wg.Wait()

	p2 := start(t, dir, addr, flags...)
	u = p2.usage(t, key)
	listed, n := p2.listedBytes(t, key, pages)
	if int64(n) < acked.Load() || num(u["stored_file_bytes"]) != listed {
		t.Fatalf("after kill -9: %d files listed (%d bytes), %d acknowledged; usage counts %v file bytes (want the listed bytes)",
			n, listed, acked.Load(), u["stored_file_bytes"])
	}
	t.Logf("kill -9 after %d acknowledged uploads: %d files (%d bytes) listed, usage %v", acked.Load(), n, listed, u)

	// Now fill the quota concurrently: every worker uploads until refused.
	var refusals sync.Map
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				st, body, _, err := p2.uploadFile(key, pages[w%len(pages)], size)
				if err != nil {
					t.Errorf("upload: %v", err)
					return
				}
				if st != 201 {
					refusals.Store(w, [2]any{st, body})
					return
				}
			}
		}(w)
	}
	wg.Wait()
	refusals.Range(func(_, v any) bool {
		r := v.([2]any)
		body, _ := r[1].(map[string]any)
		e, _ := body["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if r[0] != 413 || e["code"] != "PAYLOAD_TOO_LARGE" || d["limit"] != "storage_bytes" || e["message"] == "" {
			t.Errorf("a refused upload: %v %v (want 413 PAYLOAD_TOO_LARGE, details.limit storage_bytes)", r[0], body)
		}
		return true
	})
	u = p2.usage(t, key)
	listed, _ = p2.listedBytes(t, key, pages)
	stored := num(u["stored_bytes"])
	if stored > limit || stored+size <= limit {
		t.Fatalf("stored %d bytes of a %d quota after filling it with %d-byte files: the quota was passed, or an upload that fitted was refused", stored, limit, size)
	}
	if num(u["stored_file_bytes"]) != listed || stored != num(u["stored_file_bytes"])+num(u["stored_event_bytes"]) {
		t.Fatalf("usage %v, listed file bytes %d", u, listed)
	}
	t.Logf("quota of %d filled to %d (%d in files, %v in the event log)", limit, stored, listed, u["stored_event_bytes"])
}

// TestFilesAreDeletedWithTheirPagesRetentionAfterRestart: a page's files are
// deleted --file-retention after the page ends (here revoked): the bytes leave the
// disk, the records the listing and the workspace's stored bytes go down; the due
// time is stored with the page, so a node killed before it and started again still
// deletes them. A page still open keeps its files.
func TestFilesAreDeletedWithTheirPagesRetentionAfterRestart(t *testing.T) {
	const size = 10 << 10
	dir, addr := t.TempDir(), ports.Free(t)
	flags := []string{"--file-retention", "3s"}
	p := start(t, dir, addr, flags...)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "retention-test"})
	key := reg["apiKey"].(string)
	var pages, keys []string
	for i := 0; i < 2; i++ {
		_, m, _ := p.call("POST", "/v1/publish", key, publishBody(i))
		id := m["pageId"].(string)
		st, _, sk, err := p.uploadFile(key, id, size)
		if err != nil || st != 201 {
			t.Fatalf("upload: %d %v", st, err)
		}
		pages, keys = append(pages, id), append(keys, sk)
	}
	blob := func(sk string) string {
		name := persistence.BlobName(sk)
		return filepath.Join(dir, "blobs", name[:2], name)
	}
	if st, _, _ := p.call("POST", "/v1/pages/"+pages[0]+"/revoke", key, map[string]any{"reason": "done"}); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	if _, err := os.Stat(blob(keys[0])); err != nil {
		t.Fatalf("the file went before its retention: %v", err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()

	p2 := start(t, dir, addr, flags...)
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := os.Stat(blob(keys[0]))
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revoked page's file is still on disk 15 s after its 3 s retention (restart included)")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(blob(keys[1])); err != nil {
		t.Fatalf("the open page's file was deleted: %v", err)
	}
	if listed, n := p2.listedBytes(t, key, pages[:1]); n != 0 {
		t.Fatalf("the revoked page still lists %d files (%d bytes)", n, listed)
	}
	if u := p2.usage(t, key); num(u["stored_file_bytes"]) != size {
		t.Fatalf("usage after the retention: %v, want stored_file_bytes %d (the open page's file only)", u, size)
	}
	if st, v, err := p2.call("GET", "/v1/audit/verify", key, nil); err != nil || st != 200 || v["status"] != "valid" {
		t.Fatalf("audit chain after the retention: %d %v %v", st, v, err)
	}
}
