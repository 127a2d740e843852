package page

import "testing"

// TestSanitizeFilename: only the last path element survives; no control
// characters, separators, quotes or leading dots; bounded length.
func TestSanitizeFilename(t *testing.T) {
	long := ""
	for i := 0; i < 300; i++ {
		long += "é"
	}
	for in, want := range map[string]string{
		"report.pdf":          "report.pdf",
		"../../etc/passwd":    "passwd",
		`C:\Users\x\a b.txt`:  "a_b.txt",
		"..":                  "file",
		"":                    "file",
		"...hidden":           "hidden",
		"a..b":                "a_b",
		"tab\there\x00.txt":   "tabhere.txt",
		"semi;colon\"q\".txt": "semi_colon_q_.txt",
		"\u202eevil.exe":      "evil.exe",
	} {
		if got := sanitizeFilename(in); got != want {
			t.Errorf("sanitizeFilename(%q) = %q, want %q", in, got, want)
		}
	}
	if got := []rune(sanitizeFilename(long)); len(got) != MaxFilenameChars {
		t.Errorf("long name kept %d characters", len(got))
	}
}

// TestOwnKey: a page accepts only storage keys it could have issued.
func TestOwnKey(t *testing.T) {
	a := &Actor{id: "pg_1", page: &Page{ID: "pg_1", TenantID: "ten_1"}}
	for key, want := range map[string]bool{
		"ten_1/pg_1/1700000000000_a.txt":    true,
		"ten_1/pg_2/1700000000000_a.txt":    false,
		"ten_2/pg_1/1700000000000_a.txt":    false,
		"ten_1/pg_1/1700000000000_../a.txt": false,
		"ten_1/pg_1/x_a.txt":                false,
		"ten_1/pg_1/123":                    false,
		"ten_1/pg_1/123_a b.txt":            false,
		"ten_1/pg_1/../pg_1/123_a.txt":      false,
	} {
		if got := a.ownKey(key); got != want {
			t.Errorf("ownKey(%q) = %v", key, got)
		}
	}
}
