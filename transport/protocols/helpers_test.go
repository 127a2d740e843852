package protocols

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"folio/actors/model/blocks"
)

// dataOfBlock decodes a block's data (numbers as float64, as a client would).
func dataOfBlock(t *testing.T, b blocks.Block) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b.Data, &m); err != nil {
		t.Fatalf("block %s: data is not a JSON object: %v: %s", b.Type, err, b.Data)
	}
	return m
}

func types(bl []blocks.Block) []string {
	out := make([]string, len(bl))
	for i, b := range bl {
		out[i] = b.Type
	}
	return out
}

func wantTypes(t *testing.T, bl []blocks.Block, want ...string) {
	t.Helper()
	if got := types(bl); !reflect.DeepEqual(got, want) {
		t.Fatalf("block types = %v, want %v", got, want)
	}
}

// asJSON re-encodes a decoded value for compact comparisons.
func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON for %s: %v", what, err)
	}
	if asJSON(got) != asJSON(w) {
		t.Errorf("%s =\n  %s\nwant\n  %s", what, asJSON(got), asJSON(w))
	}
}

func hasWarning(ws []string, parts ...string) bool {
next:
	for _, w := range ws {
		for _, p := range parts {
			if !strings.Contains(w, p) {
				continue next
			}
		}
		return true
	}
	return false
}

func wantWarning(t *testing.T, ws []string, parts ...string) {
	t.Helper()
	if !hasWarning(ws, parts...) {
		t.Errorf("no warning containing %q in %q", parts, ws)
	}
}

func wantNoWarningWith(t *testing.T, ws []string, parts ...string) {
	t.Helper()
	if hasWarning(ws, parts...) {
		t.Errorf("unexpected warning containing %q in %q", parts, ws)
	}
}

func wantNoWarnings(t *testing.T, ws []string) {
	t.Helper()
	if len(ws) > 0 {
		t.Errorf("unexpected warnings: %q", ws)
	}
}

func wantError(t *testing.T, err error, field, constraint string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *Error", err, err)
	}
	if e.Field != field || e.Constraint != constraint {
		t.Errorf("error = {Field:%q Constraint:%q Message:%q}, want Field %q Constraint %q", e.Field, e.Constraint, e.Message, field, constraint)
	}
}

// checkPage asserts the invariants every successful translation keeps.
func checkPage(t *testing.T, p Page) {
	t.Helper()
	if p.Title == "" {
		t.Errorf("empty title")
	}
	for i, b := range p.Blocks {
		if b.Type == "" {
			t.Errorf("block %d has no type", i)
		}
		var m map[string]any
		if err := json.Unmarshal(b.Data, &m); err != nil || m == nil {
			t.Errorf("block %d (%s): data is not a JSON object: %s", i, b.Type, b.Data)
		}
	}
	seen := map[string]bool{}
	for _, a := range p.Actions {
		if a.ActionID == "" || seen[a.ActionID] {
			t.Errorf("bad or duplicate action %+v", a)
		}
		seen[a.ActionID] = true
	}
	if len(p.Warnings) > maxWarnings+1 {
		t.Errorf("%d warnings, limit %d", len(p.Warnings), maxWarnings+1)
	}
}
