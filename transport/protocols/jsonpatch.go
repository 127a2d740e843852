package protocols

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// applyPatch applies a JSON Patch (RFC 6902) to doc and returns the new
// document. Operations apply in order; the first failing operation stops the
// patch and is reported, earlier ones stay applied (AG-UI deltas are
// best-effort display state, not transactional). Copies spend *copyBudget.
func applyPatch(doc any, ops any, copyBudget *int) (any, error) {
	list, ok := ops.([]any)
	if !ok {
		return doc, errors.New("patch is not an array of operations")
	}
	for i, raw := range list {
		op, ok := asMap(raw)
		if !ok {
			return doc, fmt.Errorf("operation %d is not an object", i)
		}
		var err error
		doc, err = applyOp(doc, op, copyBudget)
		if err != nil {
			return doc, fmt.Errorf("operation %d (%s %s): %v", i, str(op, "op"), str(op, "path"), err)
		}
	}
	return doc, nil
}

func applyOp(doc any, op map[string]any, copyBudget *int) (any, error) {
	path, err := parsePointer(str(op, "path"), false)
	if err != nil {
		return doc, err
	}
	switch str(op, "op") {
	case "add":
		val, ok := op["value"]
		if !ok {
			return doc, errors.New("missing value")
		}
		return addAt(doc, path, val)
	case "remove":
		if _, ok := getAt(doc, path); !ok {
			return doc, errors.New("path not found")
		}
		return removeAt(doc, path), nil
	case "replace":
		val, ok := op["value"]
		if !ok {
			return doc, errors.New("missing value")
		}
		if _, ok := getAt(doc, path); !ok {
			return doc, errors.New("path not found")
		}
		return putAt(doc, path, val)
	case "move", "copy":
		fromStr := str(op, "from")
		from, err := parsePointer(fromStr, false)
		if err != nil {
			return doc, err
		}
		val, ok := getAt(doc, from)
		if !ok {
			return doc, errors.New("from not found")
		}
		if str(op, "op") == "copy" {
			if val, ok = deepCopy(val, copyBudget); !ok {
				return doc, errors.New("copy budget exhausted")
			}
			return addAt(doc, path, val)
		}
		if strings.HasPrefix(str(op, "path")+"/", fromStr+"/") && len(path) > len(from) {
			return doc, errors.New("cannot move a value into itself")
		}
		return addAt(removeAt(doc, from), path, val)
	case "test":
		val, ok := getAt(doc, path)
		if !ok || !reflect.DeepEqual(val, op["value"]) {
			return doc, errors.New("test failed")
		}
		return doc, nil
	}
	return doc, fmt.Errorf("unknown op %q", str(op, "op"))
}

// addAt implements the RFC 6902 "add": set an object member, or insert into
// an array at an index or at the end ("-").
func addAt(doc any, path []string, val any) (any, error) {
	if len(path) == 0 {
		return val, nil
	}
	parent, ok := getAt(doc, path[:len(path)-1])
	if !ok {
		return doc, errors.New("parent not found")
	}
	last := path[len(path)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = val
		return doc, nil
	case []any:
		i := len(c)
		if last != "-" {
			var ok bool
			if i, ok = arrayIndex(last, len(c)+1); !ok {
				return doc, errors.New("array index out of range")
			}
		}
		nc := make([]any, 0, len(c)+1)
		nc = append(append(append(nc, c[:i]...), val), c[i:]...)
		return putAt(doc, path[:len(path)-1], nc)
	}
	return doc, errors.New("parent is not a container")
}
