package blocks

import (
	"fmt"
	"math"
	"slices"
)

const (
	// maxWarnings bounds the warnings of one call; the rest are counted.
	maxWarnings = 100
	// maxValueDepth bounds how deep into data the checker descends (JSON levels).
	maxValueDepth = 256
)

// checker walks blocks and collects warnings in walk order, so the same input
// always gives the same warnings. It never panics: every type assertion is
// checked, and its recursion is bounded by maxValueDepth.
type checker struct {
	warnings []string
	omitted  int
	depth    int
	tooDeep  bool              // the depth warning was given
	changed  bool              // a value of the current top-level block was normalised
	ids      map[string]string // block id -> path of the block that first used it
}

func newChecker() *checker { return &checker{ids: map[string]string{}} }

func (c *checker) warn(p, format string, args ...any) {
	if len(c.warnings) >= maxWarnings {
		c.omitted++
		return
	}
	c.warnings = append(c.warnings, p+": "+fmt.Sprintf(format, args...))
}

// result returns the warnings, with a closing note when some were left out.
func (c *checker) result(p string) []string {
	if c.omitted > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%s: %d more warnings not shown; fix the ones above and send again", p, c.omitted))
	}
	return c.warnings
}

// blockHead checks the members every block has and returns the catalog entry
// of its type, nil for an unknown or missing type.
func (c *checker) blockHead(p string, typ, id, group, tab any) *blockType {
	for _, m := range []struct {
		name string
		v    any
	}{{"id", id}, {"group", group}, {"tab", tab}} {
		if m.v != nil {
			if _, ok := m.v.(string); !ok {
				c.warn(join(p, m.name), "expected a string, got %s; send a JSON string", got(m.v))
			}
		}
	}
	if s, ok := id.(string); ok && s != "" {
		if first, dup := c.ids[s]; dup {
			c.warn(join(p, "id"), "duplicate id %s (already used by %s); give each block a unique id or leave id out", quote(s), first)
		} else {
			c.ids[s] = p
		}
	}
	switch t := typ.(type) {
	case string:
		if t != "" {
			return byName[t]
		}
	case nil:
	default:
		c.warn(join(p, "type"), "expected a string, got %s; send a block type name such as \"text\"", got(typ))
		return nil
	}
	c.warn(join(p, "type"), "missing; send a block type name such as \"text\" or \"table\"")
	return nil
}

// nested checks a block found inside another block's data.
func (c *checker) nested(p string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		c.warn(p, "expected a block object, got %s; send {\"type\": ..., \"data\": {...}}", got(v))
		return
	}
	bt := c.blockHead(p, m["type"], m["id"], m["group"], m["tab"])
	if e, ok := m["editable"].(bool); ok && e {
		c.warn(join(p, "editable"), "only top-level blocks can be edited by the reviewer; the mark is ignored")
	}
	data, sent := m["data"]
	c.data(join(p, "data"), bt, data, sent)
}

// data checks a block's data. Absent data is read as an empty object; data of
// an unknown type is not checked at all.
func (c *checker) data(p string, bt *blockType, v any, sent bool) {
	if bt == nil {
		return
	}
	if !sent {
		v = map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.warn(p, "expected an object, got %s; send the %s fields as a JSON object", got(v), bt.name)
		return
	}
	c.object(p, bt.data, m)
}

// object checks the known members of m; unknown members are left alone.
func (c *checker) object(p string, o *object, m map[string]any) {
	if o.normalize != nil {
		o.normalize(c, p, m)
	}
	for i := range o.fields {
		f := &o.fields[i]
		v, ok := m[f.name]
		if v == nil {
			if f.required {
				c.missing(join(p, f.name), f, ok)
			}
			continue
		}
		c.value(join(p, f.name), f, v)
	}
	if len(o.anyOf) > 0 && !slices.ContainsFunc(o.anyOf, func(k string) bool { return present(m, k) }) {
		c.missingOneOf(p, o)
	}
	if o.check != nil {
		o.check(c, p, m)
	}
}

// value checks v against f: its shape first, then its content.
func (c *checker) value(p string, f *field, v any) {
	if v == nil && f.nullable {
		return
	}
	if !shapeOK(f, v) {
		c.mismatch(p, f, v, 0)
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxValueDepth {
		if !c.tooDeep {
			c.tooDeep = true
			c.warn(p, "nested more than %d levels deep; not checked further", maxValueDepth)
		}
		return
	}
	switch f.kind {
	case kString:
		if s := v.(string); len(f.enum) > 0 && !slices.Contains(f.enum, s) {
			c.warn(p, "%s is not an allowed value; send one of %s%s", quote(s), quoteAll(f.enum), didYouMean(s, f.enum))
		}
	case kTime:
		if problem := timeProblem(v.(string)); problem != "" {
			c.warn(p, "%s", problem)
		}
	case kURL, kImageURL:
		if problem := urlProblem(v.(string), f.kind == kImageURL); problem != "" {
			c.warn(p, "%s", problem)
		}
	case kObject:
		c.object(p, f.obj, v.(map[string]any))
	case kArray:
		c.elements(p, f.elem, v.([]any))
	case kMap:
		m := v.(map[string]any)
		for _, k := range sortedKeys(m) {
			c.value(join(p, k), f.elem, m[k])
		}
	case kBlocks:
		for i, e := range v.([]any) {
			c.nested(index(p, i), e)
		}
	}
}

// elements checks the elements of an array. Elements of the wrong shape draw
// one warning, at the first of them, that counts the others.
func (c *checker) elements(p string, elem *field, a []any) {
	first, others := -1, 0
	for i, e := range a {
		if !(e == nil && elem.nullable) && !shapeOK(elem, e) {
			if first < 0 {
				first = i
			} else {
				others++
			}
		}
	}
	for i, e := range a {
		if i == first {
			c.mismatch(index(p, i), elem, e, others)
		} else if e == nil && elem.nullable || shapeOK(elem, e) {
			c.value(index(p, i), elem, e)
		}
	}
}

// shapeOK reports whether v has the JSON shape f requires (null never does).
func shapeOK(f *field, v any) bool {
	switch f.kind {
	case kAny:
		return v != nil
	case kPoint:
		return jsonType(v) == "number" || isPoint(v)
	case kInteger:
		n, ok := asNumber(v)
		return ok && n == math.Trunc(n) && n >= f.min
	}
	return slices.Contains(kinds[f.kind].types, jsonType(v))
}
