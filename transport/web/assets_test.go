package web

import (
	"bytes"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"folio/transport/web/render"
)

// The bundles drop the sources' comments (assets.go) on two promises of the
// sources, checked here: no script uses a template literal or a string continued
// over lines (so no line starts inside one), and no stylesheet string holds /*.
// And what is dropped is only comments: every other line of every script is in
// the bundle.
func TestTheBundlesDropOnlyComments(t *testing.T) {
	var scripts, sheets [][]byte
	scripts = append(scripts, render.Script())
	sheets = append(sheets, render.Stylesheet())
	for _, glob := range []string{"assets/*.js", "assets/*.css"} {
		names, _ := fs.Glob(assetFS, glob)
		for _, n := range names {
			b, _ := assetFS.ReadFile(n)
			if strings.HasSuffix(n, ".js") {
				scripts = append(scripts, b)
			} else {
				sheets = append(sheets, b)
			}
		}
	}
	code := regexp.MustCompile(`(?m)^[^/]*` + "`" + `|\\$`)
	for _, s := range scripts {
		for _, line := range strings.Split(string(s), "\n") {
			if tr := strings.TrimSpace(line); strings.HasPrefix(tr, "//") || strings.HasPrefix(tr, "*") || strings.HasPrefix(tr, "/*") {
				continue
			}
			if code.MatchString(line) {
				t.Errorf("a script line with a template literal or a continued string, which the bundle's comment stripping cannot see into: %q", line)
			}
		}
	}
	for _, s := range sheets {
		if regexp.MustCompile(`["'][^"'\n]*/\*`).Match(s) {
			t.Errorf("a stylesheet string holds /*, which the bundle's comment stripping would cut")
		}
	}
	a := buildAssets()
	if bytes.Contains(a.css.body, []byte("/*")) {
		t.Error("the CSS bundle still has a comment")
	}
	js := string(a.js.body)
	for _, s := range scripts {
		for _, line := range strings.Split(string(s), "\n") {
			if tr := strings.TrimSpace(line); tr == "" || strings.HasPrefix(tr, "//") {
				if strings.HasPrefix(tr, "//") && strings.Contains(js, "\n"+line+"\n") {
					t.Errorf("a comment line is in the JS bundle: %q", line)
				}
				continue
			}
			if !strings.Contains(js, line) {
				t.Fatalf("a line of code is missing from the JS bundle: %q", line)
			}
		}
	}
}
