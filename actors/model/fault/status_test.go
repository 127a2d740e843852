package fault

import "testing"

// TestEveryCodeHasOneStatus: each code of the table maps to its own status, and
// only the internal error is a 500.
func TestEveryCodeHasOneStatus(t *testing.T) {
	seen := map[int]string{}
	for _, c := range Codes() {
		st := Status(c)
		if other, dup := seen[st]; dup {
			t.Errorf("%s and %s share status %d", c, other, st)
		}
		seen[st] = c
		if st == 500 && c != Internal {
			t.Errorf("%s is a 500", c)
		}
	}
	if len(seen) != len(statuses) {
		t.Errorf("Codes lists %d codes, the table has %d", len(seen), len(statuses))
	}
}
