package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"folio/transport/node/nodetest/ports"
)

// TestTrustedProxiesSettingSeparatesClientsBehindTheProxy: the binary started with
// FOLIO_TRUSTED_PROXIES=127.0.0.1/32 (the env twin of --trusted-proxies) keeps one
// sign-in link bucket per X-Forwarded-For client: the first client's 21st link is
// 429, the second client's first is sent. A value that is not a CIDR list stops
// the binary at start, naming the flag.
func TestTrustedProxiesSettingSeparatesClientsBehindTheProxy(t *testing.T) {
	p := startEnv(t, []string{"FOLIO_TRUSTED_PROXIES=127.0.0.1/32"}, t.TempDir(), ports.Free(t))
	send := func(client, email string) int {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"email": email})
		req, _ := http.NewRequest("POST", p.base+"/v1/auth/magic-link/send", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 20 {
		if st := send("203.0.113.1", fmt.Sprintf("a%d@example.com", i)); st != 200 {
			t.Fatalf("link %d of the first client: %d", i, st)
		}
	}
	if st := send("203.0.113.1", "a20@example.com"); st != 429 {
		t.Fatalf("the first client's 21st link: %d, want 429", st)
	}
	if st := send("203.0.113.2", "b@example.com"); st != 200 {
		t.Fatalf("the second client's first link: %d, want 200", st)
	}

	out, err := exec.Command(folioBinary(t), "serve", "--addr", ports.Free(t), "--data", t.TempDir(), "--trusted-proxies", "10.0.0.0/8,nginx").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--trusted-proxies") || !strings.Contains(string(out), `"nginx"`) {
		t.Fatalf("a bad --trusted-proxies: %v\n%s", err, out)
	}
}
