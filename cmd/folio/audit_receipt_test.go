package main

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"

	"golang.org/x/mod/sumdb/note"
)

// TestVerifyReceiptOfARealCallback: the receipt an action.executed callback
// carried to a real receiver verifies offline with the key, a checkpoint and the
// proof (as files, and fetched with --server), and so does the wait answer's,
// which holds its checkpoint and proof; a tampered receipt, another key and a
// proof of another entry each fail, naming what did not hold.
func TestVerifyReceiptOfARealCallback(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	hook := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
	}))
	defer hook.Close()
	e := nodetest.New(t, func(c *node.Config) { c.AllowPrivateCallbacks = true })
	key, _ := e.Register("receipts")
	id := e.Publish(key, map[string]any{"on_action": map[string]any{"default_url": hook.URL + "/hook"}})
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"comment": "ship it"})

	var callback []byte
	for deadline := time.Now().Add(10 * time.Second); callback == nil; {
		mu.Lock()
		for _, b := range bodies {
			if bytes.Contains(b, []byte(`"event":"action.executed"`)) {
				callback = b
			}
		}
		mu.Unlock()
		if callback == nil {
			if time.Now().After(deadline) {
				t.Fatal("no action.executed callback within 10 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !bytes.Contains(callback, []byte(`"receipt":{`)) {
		t.Fatalf("the callback carries no receipt: %s", callback)
	}

	get := func(path, key string) []byte {
		t.Helper()
		r := e.Do("GET", path, key, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		return r.Body
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keyFile := write("folio.pub", get("/v1/audit/key", ""))
	cbFile := write("callback.json", callback)
	cp := get("/v1/audit/checkpoint", key)
	cpFile := write("checkpoint", cp)
	// entry 1 page.created, 2 page.published, 3 action.executed
	proofFile := write("proof.json", get("/v1/audit/proof/inclusion?entry=3", key))
	otherProof := write("proof1.json", get("/v1/audit/proof/inclusion?entry=1", key))

	verify := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runAudit(append([]string{"verify-receipt"}, args...), &out)
		return out.String(), err
	}
	out, err := verify("--key", keyFile, "--checkpoint", cpFile, "--proof", proofFile, cbFile)
	if err != nil || !strings.Contains(out, "verified: entry 3 is in the audit tree the key signed") ||
		!strings.Contains(out, "version 1, content sha256:") || !strings.Contains(out, "is signed by the key") {
		t.Fatalf("the callback's receipt with files: %v\n%s", err, out)
	}
	if out, err := verify("--key", keyFile, "--server", e.Srv.URL, "--api-key", key, cbFile); err != nil {
		t.Fatalf("the callback's receipt with --server: %v\n%s", err, out)
	}
	wait := get("/v1/pages/"+id+"/wait", key)
	if out, err := verify("--key", keyFile, write("wait.json", wait)); err != nil || !strings.Contains(out, "verified: entry 3") {
		t.Fatalf("the wait answer's receipt, alone: %v\n%s\n%s", err, out, wait)
	}

	// What must fail, and the first thing that failed named.
	_, otherKey, err := note.GenerateKey(rand.Reader, "other/folio/audit")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"a receipt claiming another version", "it says page_version 2",
			[]string{"--key", keyFile, "--checkpoint", cpFile, "--proof", proofFile,
				write("tampered.json", bytes.Replace(callback, []byte(`"leaf_index":2,"page_version":1`), []byte(`"leaf_index":2,"page_version":2`), 1))}},
		{"a receipt whose entry bytes were changed", "do not hash to leaf_hash",
			[]string{"--key", keyFile, "--checkpoint", cpFile, "--proof", proofFile,
				write("bytes.json", bytes.Replace(callback, []byte(`"entry_base64":"ey`), []byte(`"entry_base64":"eX`), 1))}},
		{"another key", "checkpoint signature",
			[]string{"--key", write("other.pub", []byte(otherKey)), "--checkpoint", cpFile, "--proof", proofFile, cbFile}},
		{"a proof of another entry", "the inclusion proof is for entry 1",
			[]string{"--key", keyFile, "--checkpoint", cpFile, "--proof", otherProof, cbFile}},
		{"no key", "needs --key", []string{cbFile}},
		{"a callback's receipt without a checkpoint", "no checkpoint", []string{"--key", keyFile, cbFile}},
	} {
		out, err := verify(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error naming %q, got %v\n%s", c.name, c.want, err, out)
		}
	}
}
