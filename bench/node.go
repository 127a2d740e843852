package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"folio/transport/client"
)

// Node is one base URL of the server under load and the clients that talk to it.
// A target has one node per URL it was given (--target is one, --targets a
// cluster's several, all sharing one store).
type Node struct {
	URL    string
	Client *http.Client // streams, and every call to an https node
	lean   *leanClient  // request-reply calls to an http node
}

// On is the node the i-th (i ≥ 0) client or operation of a scenario talks to:
// node i mod N, so a scenario's load spreads round-robin over the target's nodes.
// Set-up (the tenant, the pages to act on) goes through the first node: the
// Target's own Call, Register and Subscribe, which are its first node's.
func (t *Target) On(i int) *Node { return t.Nodes[i%len(t.Nodes)] }

// Last is the target's last node (the first when it has one).
func (t *Target) Last() *Node { return t.Nodes[len(t.Nodes)-1] }

// URLs lists the base URLs of the target's nodes, the first first.
func (t *Target) URLs() []string {
	out := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		out[i] = n.URL
	}
	return out
}

// Call sends one JSON request and decodes a JSON reply into out (may be nil). It
// returns the status; transport errors are status 0.
func (n *Node) Call(ctx context.Context, method, path, key string, body []byte, out any) (int, error) {
	if n.lean != nil {
		st, raw, err := n.lean.do(ctx, method, path, key, body)
		if err != nil {
			return st, err
		}
		return st, decodeReply(method, path, raw, out)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, n.URL+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := n.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	return res.StatusCode, decodeReply(method, path, raw, out)
}

// decodeReply decodes a JSON reply into out (nothing to do when out is nil).
func decodeReply(method, path string, raw []byte, out any) error {
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return nil
}

// Register creates a fresh agent tenant and returns its API key.
func (n *Node) Register(ctx context.Context, name string) (string, error) {
	reg, err := n.Agent("").Register(ctx, client.RegisterRequest{Name: name})
	if err != nil {
		return "", fmt.Errorf("register: %w", err)
	}
	return reg.APIKey, nil
}

// Agent is the typed client agents use (transport/client), for the harness's
// set-up and control calls. The timed request loops use the lean client (Call):
// on two cores the harness shares with the server, a general-purpose client's
// own CPU would be measured as the server's slowness.
func (n *Node) Agent(key string) *client.Client {
	return client.New(n.URL, key, client.WithHTTPClient(n.Client))
}

// scrape reads the node's /metrics and calls fn for every line.
func (n *Node) scrape(ctx context.Context, fn func(line string)) error {
	req, err := http.NewRequestWithContext(ctx, "GET", n.URL+"/metrics", nil)
	if err != nil {
		return err
	}
	res, err := n.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("/metrics: status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fn(sc.Text())
	}
	return sc.Err()
}
