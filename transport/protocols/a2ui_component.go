package protocols

import "strconv"

// component is one A2UI component from a flat list. v0.9 writes
// {id, component: "Text", ...props}; v0.8 nests {id, component: {Text: {...props}}}.
// Both end up here with kind "Text" and the props at one level.
type component struct {
	id    string
	kind  string         // catalog name as sent, e.g. "Text", "ChoicePicker"
	props map[string]any // every field except id and component; never nil
	size  int            // approximate JSON size, charged each time it is rendered
}

// parseComponent reads one component; path names it in warnings ("components[3]").
func parseComponent(v any, path string, w *warnings) (*component, bool) {
	m, ok := asMap(v)
	if !ok {
		w.add("%s: component is not an object; skipped", path)
		return nil, false
	}
	c := &component{id: str(m, "id"), props: map[string]any{}}
	if c.id == "" {
		c.id = path
		w.add("%s: component has no id; using %q", path, path)
	}
	switch t := m["component"].(type) {
	case string:
		c.kind = t
	case map[string]any:
		// v0.8: exactly one key, the component name, holding the props.
		if len(t) != 1 {
			w.add("component %s: nested component must have exactly one type key; skipped", c.id)
			return nil, false
		}
		for k, inner := range t {
			c.kind = k
			if im, ok := asMap(inner); ok {
				for pk, pv := range im {
					c.props[pk] = pv
				}
			}
		}
	case nil:
		c.kind = str(m, "type") // tolerated spelling
	}
	if c.kind == "" {
		w.add("component %s: missing component type; skipped", c.id)
		return nil, false
	}
	for k, pv := range m {
		if k == "id" || k == "component" {
			continue
		}
		if _, set := c.props[k]; !set {
			c.props[k] = pv
		}
	}
	c.size = approxSize(m)
	return c, true
}

// childRef is one child to render: a component id and the data scope (an
// absolute JSON pointer) its relative bindings resolve against.
type childRef struct {
	id    string
	scope string
}

// children lists the children of c: "child" first, then "children" as an
// explicit id list or a template {componentId, path} repeated once per item
// of the array (or object) at path. v0.8 spellings (explicitList,
// template.dataBinding) are accepted.
func (r *renderer) children(c *component, scope string) []childRef {
	var out []childRef
	if id := str(c.props, "child"); id != "" {
		out = append(out, childRef{id, scope})
	}
	ch := c.props["children"]
	if m, ok := asMap(ch); ok {
		if l, ok := m["explicitList"]; ok {
			ch = l
		} else {
			if t, ok := asMap(m["template"]); ok {
				m = t
			}
			if tid := str(m, "componentId"); tid != "" {
				return append(out, r.expandTemplate(c, tid, firstString(m, "path", "dataBinding"), scope)...)
			}
			r.w.add("component %s: children template needs componentId and path; ignored", c.id)
			return out
		}
	}
	switch list := ch.(type) {
	case nil:
	case []any:
		for i, v := range list {
			id, isStr := v.(string)
			if !isStr || id == "" {
				r.w.add("component %s: children[%d] is not a component id; skipped", c.id, i)
				continue
			}
			out = append(out, childRef{id, scope})
		}
	default:
		r.w.add("component %s: children must be a list of ids or a template {componentId, path}; ignored", c.id)
	}
	return out
}

func (r *renderer) expandTemplate(c *component, tid, path, scope string) []childRef {
	abs, ok := joinPath(scope, path)
	if !ok {
		r.w.add("component %s: template path %q is not a valid JSON pointer", c.id, path)
		return nil
	}
	v, found := r.lookup(abs)
	if !found {
		r.w.add("component %s: template path %q has no data", c.id, abs)
		return nil
	}
	var out []childRef
	switch t := v.(type) {
	case []any:
		for i := range t {
			if i == maxTemplateItems {
				r.w.add("component %s: template over %s truncated to %d items", c.id, abs, maxTemplateItems)
				break
			}
			out = append(out, childRef{tid, childScope(abs, strconv.Itoa(i))})
		}
	case map[string]any:
		for i, k := range sortedKeys(t) {
			if i == maxTemplateItems {
				r.w.add("component %s: template over %s truncated to %d items", c.id, abs, maxTemplateItems)
				break
			}
			out = append(out, childRef{tid, childScope(abs, escapeToken(k))})
		}
	default:
		r.w.add("component %s: template path %s is not a list", c.id, abs)
	}
	return out
}

func childScope(abs, tok string) string {
	if abs == "/" {
		return "/" + tok
	}
	return abs + "/" + tok
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}
