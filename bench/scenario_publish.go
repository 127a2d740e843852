package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// pageBody is a realistic approval page, padded with PayloadBytes of text.
func pageBody(i, payload int) []byte {
	body := map[string]any{
		"title": fmt.Sprintf("Deploy build %d to production?", i), "page_type": "approval", "priority": "high",
		"blocks": []any{
			map[string]any{"type": "text", "data": map[string]any{"content": "Release notes. " + strings.Repeat("x", payload)}},
			map[string]any{"type": "key_value", "data": map[string]any{"pairs": []any{map[string]any{"key": "Service", "value": "api"}, map[string]any{"key": "Build", "value": fmt.Sprint(i)}}}},
		},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
		},
	}
	b, _ := json.Marshal(body)
	return b
}

// publishScenario: agents publish pages at a concurrency, publish i for tenant i
// mod Tenants, through node i mod N (with o.Affinity, through the tenant's node:
// tenant t's through node t mod N). Check: every acknowledged page is listed
// afterwards, through the first node (nothing acknowledged is missing).
func publishScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	keys := make([]string, o.Tenants)
	for i := range keys {
		key, err := t.Register(ctx, fmt.Sprintf("bench-publisher-%d", i))
		if err != nil {
			return nil, err
		}
		keys[i] = key
	}
	rec := NewRecorder()
	var mu sync.Mutex
	acked := 0
	elapsed := drive(ctx, "publish", o, rec, func(ctx context.Context, i int) string {
		var out struct {
			PageID string `json:"pageId"`
		}
		node := i
		if o.Affinity {
			node = i % len(keys)
		}
		st, err := t.On(node).Call(ctx, "POST", "/v1/publish", keys[i%len(keys)], pageBody(i, o.PayloadBytes), &out)
		if err != nil || st != 201 {
			return statusCode(st, err)
		}
		mu.Lock()
		acked++
		mu.Unlock()
		return ""
	})
	n, lat, errs := rec.Summary()
	res := &Result{Scenario: "publish", Operations: n, Seconds: elapsed.Seconds(), Unit: "pages/s", Latency: lat, Errors: errs,
		Params: map[string]any{"concurrency": o.Concurrency, "payload_bytes": o.PayloadBytes, "tenants": o.Tenants, "affinity": o.Affinity}}
	listed, listErr := 0, error(nil)
	for _, key := range keys {
		var list struct {
			Total int `json:"total"`
		}
		st, err := t.Call(context.Background(), "GET", "/v1/pages?limit=1", key, nil, &list)
		if err == nil && st != 200 {
			err = fmt.Errorf("status %d", st)
		}
		if err != nil {
			listErr = err
		}
		listed += list.Total
	}
	// Every acknowledged page is stored; requests cut off by the end of the run may
	// have been stored without their answer arriving, at most one per client.
	res.check("acknowledged pages stored", listErr == nil && listed >= acked && listed <= acked+o.Concurrency,
		"%d acknowledged, %d listed over %d tenants (at most %d more may have been cut off unanswered)", acked, listed, len(keys), o.Concurrency)
	return res, nil
}
