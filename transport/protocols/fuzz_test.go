package protocols

import (
	"errors"
	"testing"
)

// The fuzz targets assert that translation never panics, always returns,
// and that results keep the page invariants (see checkPage). Seed corpora
// live in testdata/fuzz/<Name>/.

func FuzzA2UI(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := FromA2UI(body)
		checkResult(t, p, err)
	})
}

func FuzzAGUI(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := FromAGUI(body)
		checkResult(t, p, err)
	})
}

func checkResult(t *testing.T, p Page, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Constraint == "" || e.Message == "" {
			t.Fatalf("error %v (%T) is not a complete *Error", err, err)
		}
		if p.Title != "" || p.Blocks != nil || p.Actions != nil || p.Warnings != nil {
			t.Fatalf("error with a non-empty page: %+v", p)
		}
		return
	}
	checkPage(t, p)
}
