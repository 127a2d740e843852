package textdiff

import (
	"strings"
	"testing"
)

func TestUnifiedShowsTheChangedLineWithItsContext(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	b := "one\ntwo\nthree\nfour\n5\nsix\nseven\neight\n"
	got, cut := Unified(a, b, "agent", "edited", 1<<10)
	want := "--- agent\n+++ edited\n@@ -2,7 +2,7 @@\n two\n three\n four\n-five\n+5\n six\n seven\n eight\n"
	if got != want || cut {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if d, _ := Unified(a, a, "x", "y", 100); d != "" {
		t.Fatalf("equal texts gave %q", d)
	}
}

func TestUnifiedOfEmptyAndAppendedTexts(t *testing.T) {
	got, _ := Unified("", "new\n", "a", "b", 1<<10)
	if got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n" {
		t.Fatalf("got %q", got)
	}
	got, _ = Unified("x\n", "x\ny\n", "a", "b", 1<<10)
	if got != "--- a\n+++ b\n@@ -1 +1,2 @@\n x\n+y\n" {
		t.Fatalf("got %q", got)
	}
}

func TestUnifiedIsBoundedInSizeAndWork(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		a.WriteString("a line\n")
		b.WriteString("b line\n")
	}
	got, cut := Unified(a.String(), b.String(), "a", "b", 4096)
	if !cut || len(got) > 4096 || !strings.HasSuffix(got, "\n") {
		t.Fatalf("cut=%v len=%d", cut, len(got))
	}
	if !strings.HasPrefix(got, "--- a\n+++ b\n@@ -1,5000 +1,5000 @@\n-a line\n") {
		t.Fatalf("head %q", got[:60])
	}
}
