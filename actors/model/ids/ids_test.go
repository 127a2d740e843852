package ids

import (
	"strings"
	"testing"
	"time"
)

// TestNewIsTimeOrderedAndUnguessable: ids sort as their creation times do (so B+tree
// inserts cluster), and two ids of the same millisecond still differ in 16 random
// characters.
func TestNewIsTimeOrderedAndUnguessable(t *testing.T) {
	a := New("pg")
	time.Sleep(2 * time.Millisecond)
	b := New("pg")
	if !strings.HasPrefix(a, "pg_") || len(a) != len("pg_")+24 {
		t.Fatalf("id %q: want pg_ and 24 characters", a)
	}
	if a >= b {
		t.Fatalf("later id %q does not sort after %q", b, a)
	}
	seen := map[string]bool{}
	for range 1000 {
		id := New("evt")
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
	for _, pair := range [][2]time.Time{
		{time.UnixMilli(0), time.UnixMilli(1)},
		{time.UnixMilli(61), time.UnixMilli(62)},
		{time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2126, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		x, y := timePart(pair[0]), timePart(pair[1])
		if len(x) != 8 || x >= y {
			t.Errorf("timePart(%v) = %q, timePart(%v) = %q: not ordered", pair[0], x, pair[1], y)
		}
	}
}
