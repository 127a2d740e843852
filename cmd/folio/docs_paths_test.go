package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPath is a repository path written in code font in the docs: `transport/web/`,
// `actors/page/expiry.go`, `persistence/pg.go:120`, `actors/page.Execute`.
var docPath = regexp.MustCompile("`((?:cmd|actors|transport|persistence|bench|docs|\\.ci)/[A-Za-z0-9_./*-]*)")

// TestTheDocsNameFilesThatExist: every repository path the README, the docs and the
// bench notes write in code font exists (a file, a folder or a glob that matches),
// so the docs describe the house as it is after a file moves or is renamed.
func TestTheDocsNameFilesThatExist(t *testing.T) {
	root := "../.."
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "bench", "README.md"))
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docPath.FindAllStringSubmatch(string(b), -1) {
			checked++
			if !pathExists(root, m[1]) {
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s names %s, which is not in the repository", rel, m[1])
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d paths found in the docs: is the pattern still right?", checked)
	}
}

// pathExists reads p as a path, a path with a line (`x.go:12`), a Go name in a
// package (`actors/page.Execute`) or a glob (`transport/httpapi/signin_*.go`).
func pathExists(root, p string) bool {
	p = strings.TrimRight(p, ".,")
	if i := strings.Index(p, ".go"); i >= 0 {
		p = p[:i+3]
	}
	candidates := []string{p}
	if dir, name := filepath.Split(p); dir != "" && strings.Contains(name, ".") && !strings.HasSuffix(name, ".go") {
		candidates = append(candidates, dir+name[:strings.Index(name, ".")])
	}
	for _, c := range candidates {
		if strings.Contains(c, "*") {
			if m, _ := filepath.Glob(filepath.Join(root, c)); len(m) > 0 {
				return true
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(root, c)); err == nil {
			return true
		}
	}
	return false
}

// TestTheHouseMapNamesEveryPackage: docs/design.md's map of the house (§1) names
// every package of the module, so a new folder can't be left off the map.
func TestTheHouseMapNamesEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	house := string(b)
	if i := strings.Index(house, "## 2."); i > 0 {
		house = house[:i]
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(pkg, "folio/")
		if rel == "folio" || strings.Contains(house, rel+"/") {
			continue
		}
		// A nested folder is named on its parent's line: "render/" under web/.
		parent, name := filepath.Split(rel)
		if parent == "" || !strings.Contains(house, " "+name+"/") {
			t.Errorf("docs/design.md's map of the house does not name %s", rel)
		}
	}
}
