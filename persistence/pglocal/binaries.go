//go:build linux

package pglocal

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// debianRoot holds one directory per installed major version of Debian's
// postgresql package: /usr/lib/postgresql/<version>/bin.
const debianRoot = "/usr/lib/postgresql"

// binDir is the directory of the PostgreSQL server binaries (initdb, postgres): the
// one on PATH when there is one, else the newest of Debian's.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	found, _ := filepath.Glob(filepath.Join(debianRoot, "*", "bin", "initdb"))
	if len(found) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb not found: install Debian's postgresql package (.ci/run does)")
	}
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Dir(f)
	}
	return newest(dirs), nil
}

// newest is the directory of the highest version among <root>/<version>/bin, the
// versions compared as numbers (16 is newer than 9.6), not as text.
func newest(dirs []string) string {
	version := func(dir string) []int {
		var v []int
		for _, part := range strings.Split(filepath.Base(filepath.Dir(dir)), ".") {
			n, _ := strconv.Atoi(part)
			v = append(v, n)
		}
		return v
	}
	sort.SliceStable(dirs, func(i, j int) bool {
		a, b := version(dirs[i]), version(dirs[j])
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	return dirs[len(dirs)-1]
}
