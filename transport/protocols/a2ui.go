package protocols

import (
	"fmt"
	"strings"
)

// FromA2UI translates an A2UI payload into a page. Accepted bodies:
//
//	(a) the envelope {version, title, updateComponents: {surfaceId, components}}
//	    (createSurface / updateDataModel may ride along in the same object);
//	(b) a bare JSON array of components;
//	(c) a JSON array (or JSON Lines) of A2UI v0.9 messages, each with exactly one of
//	    createSurface, updateComponents, updateDataModel, deleteSurface
//	    (v0.8 beginRendering, surfaceUpdate, dataModelUpdate are accepted too).
//
// An object whose a2ui_operations, operations, messages or a2ui field holds
// such an array is accepted as well. Messages are applied in order; each
// surface is then rendered once from its final state.
func FromA2UI(body []byte) (Page, error) {
	vals, err := decodeValues(body)
	if err != nil {
		return Page{}, err
	}
	var v any = vals[0]
	if len(vals) > 1 {
		v = vals // JSON Lines: a stream of messages
	}
	p, perr := translateA2UI(v, 0)
	if perr != nil {
		return Page{}, perr
	}
	return p, nil
}

// surface is one A2UI surface after all messages were applied.
type surface struct {
	id    string
	root  string // v0.8 beginRendering.root; "" means "root", else the unreferenced components
	comps map[string]*component
	order []string // component ids in order of first definition
	data  any      // data model; nil until set
}

// a2uiDoc accumulates the messages of one request.
type a2uiDoc struct {
	w         warnings
	title     string
	surfaces  []*surface // in order of first mention
	byID      map[string]*surface
	ncomp     int
	compField string // JSON path of the first component list, for errors
	listSeen  bool
}

// messageKeys in application order: surfaces, then data, then components.
var messageKeys = [...]string{"createSurface", "beginRendering", "updateDataModel", "dataModelUpdate", "updateComponents", "surfaceUpdate", "deleteSurface"}

func translateA2UI(v any, nesting int) (Page, *Error) {
	d := &a2uiDoc{byID: map[string]*surface{}}
	if err := d.load(v, nesting); err != nil {
		return Page{}, err
	}
	if d.ncomp == 0 {
		if !d.listSeen {
			return Page{}, newError("updateComponents", "required", "no components: send updateComponents with a components list")
		}
		return Page{}, newError(d.compField, "min_items", "no valid A2UI components")
	}
	r := newRenderer(&d.w)
	var nodes []*node
	for _, s := range d.surfaces {
		if len(s.comps) == 0 {
			continue
		}
		r.surf = s
		roots := s.roots(&d.w)
		for _, id := range roots {
			nodes = append(nodes, r.render(childRef{id, "/"}, 0, "")...)
		}
		s.warnUnreachable(roots, &d.w)
	}
	title := d.title
	if title == "" {
		title = r.heading
	}
	if title == "" {
		title = "Untitled"
	}
	return Page{
		Title:    title,
		Blocks:   finishNodes(nodes, r.formNode()),
		Actions:  r.actions.list,
		Warnings: d.w.result(),
	}, nil
}

func (d *a2uiDoc) load(v any, nesting int) *Error {
	switch t := v.(type) {
	case []any:
		if isMessageList(t) {
			for i, e := range t {
				if err := d.message(e, fmt.Sprintf("messages[%d]", i), true); err != nil {
					return err
				}
			}
			return nil
		}
		d.components(t, d.surface(""), "components")
		return nil
	case map[string]any:
		if raw, ok := t["title"]; ok {
			if s, ok := raw.(string); ok {
				d.title = firstLine(s)
			} else if raw != nil {
				d.w.add("title: not a string; ignored")
			}
		}
		if hasMessageKey(t) {
			return d.message(t, "", false)
		}
		if raw, ok := t["components"]; ok {
			list, ok := raw.([]any)
			if !ok {
				return newError("components", "type", "components must be an array")
			}
			d.components(list, d.surface(str(t, "surfaceId")), "components")
			return nil
		}
		for _, k := range [...]string{"a2ui_operations", "operations", "messages", "a2ui"} {
			if inner, ok := t[k]; ok && nesting < maxA2UINesting {
				if _, isList := inner.([]any); isList {
					return d.load(inner, nesting+1)
				}
			}
		}
		return newError("", "shape", "expected an A2UI envelope {version, title, updateComponents}, a component array or a message array")
	}
	return newError("", "type", "expected a JSON object or array, got %s", kindOf(v))
}

func isMessageList(list []any) bool {
	for _, e := range list {
		if m, ok := asMap(e); ok && hasMessageKey(m) {
			return true
		}
	}
	return false
}

func hasMessageKey(m map[string]any) bool {
	for _, k := range messageKeys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// message applies one A2UI message. In a message list problems are warnings;
// for the top-level envelope a components field of the wrong type is an error.
func (d *a2uiDoc) message(v any, path string, inList bool) *Error {
	m, ok := asMap(v)
	if !ok {
		d.w.add("%s: not an object; skipped", path)
		return nil
	}
	n := 0
	for _, k := range messageKeys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	if n == 0 {
		d.w.add("%s: not an A2UI message (expected one of createSurface, updateComponents, updateDataModel, deleteSurface); skipped", path)
		return nil
	}
	if n > 1 && inList {
		d.w.add("%s: carries %d message kinds, expected exactly one; all applied", path, n)
	}
	if ver, ok := m["version"]; ok {
		s, _ := ver.(string)
		if !strings.HasPrefix(strings.TrimPrefix(s, "v"), "0.9") && !strings.HasPrefix(strings.TrimPrefix(s, "v"), "0.8") {
			d.w.add("%sversion: A2UI version %q is not v0.9; translated as v0.9", dot(path), scalarText(ver))
		}
	}
	for _, k := range messageKeys {
		raw, ok := m[k]
		if !ok {
			continue
		}
		at := dot(path) + k
		body, ok := asMap(raw)
		if !ok {
			if !inList && (k == "updateComponents" || k == "surfaceUpdate") {
				return newError(at, "type", "%s must be an object", k)
			}
			d.w.add("%s: not an object; skipped", at)
			continue
		}
		s := d.surface(str(body, "surfaceId"))
		switch k {
		case "beginRendering":
			s.root = str(body, "root")
		case "updateDataModel":
			d.updateData(s, body, at)
		case "dataModelUpdate":
			d.dataModel08(s, body, at)
		case "updateComponents", "surfaceUpdate":
			list, ok := body["components"].([]any)
			if !ok {
				if !inList {
					return newError(at+".components", "type", "components must be an array")
				}
				d.w.add("%s.components: not an array; skipped", at)
				continue
			}
			d.components(list, s, at+".components")
		}
		// createSurface only names the surface; deleteSurface is tolerated and
		// ignored: the page shows each surface as last drawn.
	}
	return nil
}

func (d *a2uiDoc) surface(id string) *surface {
	if s, ok := d.byID[id]; ok {
		return s
	}
	s := &surface{id: id, comps: map[string]*component{}}
	d.byID[id] = s
	d.surfaces = append(d.surfaces, s)
	return s
}

// components upserts a component list into s (later definitions replace earlier ones).
func (d *a2uiDoc) components(list []any, s *surface, path string) {
	if !d.listSeen {
		d.listSeen, d.compField = true, path
	}
	seen := map[string]bool{}
	for i, e := range list {
		if d.ncomp >= maxComponents {
			d.w.add("%s: more than %d components; the rest are ignored", path, maxComponents)
			return
		}
		c, ok := parseComponent(e, fmt.Sprintf("%s[%d]", path, i), &d.w)
		if !ok {
			continue
		}
		if seen[c.id] {
			d.w.add("component %s: defined twice in %s; the later definition wins", c.id, path)
		}
		seen[c.id] = true
		if _, exists := s.comps[c.id]; !exists {
			s.order = append(s.order, c.id)
		}
		s.comps[c.id] = c
		d.ncomp++
	}
}

// updateData applies updateDataModel {path?, value?}: the value replaces what
// is at path (intermediate objects are created); without a value the path is
// removed. At the root, an object value is merged key by key into an object
// model, so several root updates accumulate.
func (d *a2uiDoc) updateData(s *surface, body map[string]any, at string) {
	p := "/"
	if raw, ok := body["path"]; ok {
		ps, isStr := raw.(string)
		if !isStr {
			d.w.add("%s.path: not a string; update skipped", at)
			return
		}
		p = ps
	}
	toks, err := parsePointer(p, true)
	if err != nil {
		d.w.add("%s.path: %q: %v; update skipped", at, p, err)
		return
	}
	val, has := body["value"]
	switch {
	case !has && len(toks) == 0:
		s.data = nil
	case !has:
		s.data = removeAt(s.data, toks)
	case len(toks) == 0:
		old, ok1 := s.data.(map[string]any)
		nv, ok2 := val.(map[string]any)
		if ok1 && ok2 {
			for k, v := range nv {
				old[k] = v
			}
			return
		}
		s.data = val
	default:
		s.data = setCreate(s.data, toks, val)
	}
}

// dataModel08 applies a v0.8 dataModelUpdate {path?, contents: [{key, valueString|valueNumber|valueBoolean|valueMap}]}.
func (d *a2uiDoc) dataModel08(s *surface, body map[string]any, at string) {
	toks, err := parsePointer(str(body, "path"), true)
	if err != nil {
		d.w.add("%s.path: %v; update skipped", at, err)
		return
	}
	val := body["contents"]
	if list, ok := val.([]any); ok {
		val = contents08(list, 0)
	}
	m, ok := val.(map[string]any)
	if !ok {
		d.w.add("%s.contents: expected a list of {key, value...} entries; update skipped", at)
		return
	}
	for _, k := range sortedKeys(m) {
		s.data = setCreate(s.data, append(toks[:len(toks):len(toks)], k), m[k])
	}
}

func contents08(list []any, depth int) map[string]any {
	out := map[string]any{}
	for _, e := range list {
		m, ok := asMap(e)
		if !ok || str(m, "key") == "" {
			continue
		}
		k := str(m, "key")
		for _, vk := range [...]string{"valueString", "valueNumber", "valueBoolean"} {
			if v, ok := m[vk]; ok {
				out[k] = v
			}
		}
		if sub, ok := m["valueMap"].([]any); ok && depth < maxDepth {
			out[k] = contents08(sub, depth+1)
		}
	}
	return out
}

// roots picks what to render: beginRendering's root, else the component "root",
// else every component no other component references, in definition order.
func (s *surface) roots(w *warnings) []string {
	if s.root != "" {
		if _, ok := s.comps[s.root]; ok {
			return []string{s.root}
		}
		w.add("surface %q: root component %q not found", s.id, s.root)
	}
	if _, ok := s.comps["root"]; ok {
		return []string{"root"}
	}
	referenced := map[string]bool{}
	for _, c := range s.comps {
		for _, id := range staticRefs(c) {
			referenced[id] = true
		}
	}
	var out []string
	for _, id := range s.order {
		if !referenced[id] {
			out = append(out, id)
		}
	}
	if len(out) == 0 && len(s.order) > 0 {
		w.add("surface %q: every component is referenced by another (cycle); rendering from %q", s.id, s.order[0])
		out = s.order[:1]
	}
	return out
}

// warnUnreachable names the components no reference path leads to from roots.
func (s *surface) warnUnreachable(roots []string, w *warnings) {
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		c, ok := s.comps[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		queue = append(queue, staticRefs(c)...)
	}
	for _, id := range s.order {
		if !seen[id] {
			w.add("component %s: not reachable from the root; not shown", id)
		}
	}
}

// staticRefs lists the component ids c refers to.
func staticRefs(c *component) []string {
	var out []string
	for _, k := range [...]string{"child", "trigger", "entryPointChild", "contentChild"} {
		if id := str(c.props, k); id != "" {
			out = append(out, id)
		}
	}
	if c.kind == "Modal" {
		if id := str(c.props, "content"); id != "" {
			out = append(out, id)
		}
	}
	ch := c.props["children"]
	if m, ok := asMap(ch); ok {
		if l, ok := m["explicitList"]; ok {
			ch = l
		} else if t, ok := asMap(m["template"]); ok {
			out = append(out, str(t, "componentId"))
		} else {
			out = append(out, str(m, "componentId"))
		}
	}
	if list, ok := ch.([]any); ok {
		for _, e := range list {
			if id, ok := e.(string); ok {
				out = append(out, id)
			}
		}
	}
	for _, k := range [...]string{"tabs", "tabItems"} {
		if list, ok := c.props[k].([]any); ok {
			for _, e := range list {
				if m, ok := asMap(e); ok {
					out = append(out, str(m, "child"))
				}
			}
		}
	}
	return out
}

func dot(path string) string {
	if path == "" {
		return ""
	}
	return path + "."
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
