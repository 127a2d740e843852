package nodetest

// Wire shapes: with FOLIO_WIRE_SHAPES naming a directory, Check also records the
// shape of every JSON response it sees, one line per response, as
// "METHOD /template STATUS shape", in a file per test process. A shape keeps what
// a client can tell apart: every key, and for each value whether it is null, a
// string, a number, a bool, an object (its shape) or an array (the set of its
// elements' shapes; [] when empty). Recording the suites before and after a change
// of how responses are built, then comparing the sorted sets, shows that the JSON
// on the wire kept its field names and its omitted, null and empty members.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

var (
	shapesMu   sync.Mutex
	shapesFile *os.File
)

// recordShape appends the shape of a JSON body to the process's file; it does
// nothing unless FOLIO_WIRE_SHAPES is set.
func (s *openapiSpec) recordShape(r *http.Request, status int, header http.Header, body []byte) {
	dir := os.Getenv("FOLIO_WIRE_SHAPES")
	if dir == "" || !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
		return
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	path := r.URL.Path
	if tmpl, op, _, _ := s.match(r.Method, r.URL.Path); op != nil {
		path = tmpl.path
	}
	line := fmt.Sprintf("%s %s %d %s\n", r.Method, path, status, shape(v))
	shapesMu.Lock()
	defer shapesMu.Unlock()
	if shapesFile == nil {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("shapes-%d.txt", os.Getpid())), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		shapesFile = f
	}
	_, _ = shapesFile.WriteString(line)
}

// shape is v (as decoded by encoding/json into any) with every scalar replaced by
// its kind; object keys are sorted, array elements reduced to their distinct shapes.
func shape(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "s"
	case float64:
		return "n"
	case bool:
		return "b"
	case []any:
		var els []string
		for _, e := range x {
			if s := shape(e); !slices.Contains(els, s) {
				els = append(els, s)
			}
		}
		slices.Sort(els)
		return "[" + strings.Join(els, "|") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + shape(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "?"
}
