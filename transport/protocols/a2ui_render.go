package protocols

import (
	"fmt"
	"strings"
)

// renderer turns the component tree of each surface into block nodes.
// Invariants: every component instance rendered costs one of maxRendered and
// its size from maxOutputBytes; an instance is identified by (component id,
// data scope) and is never rendered inside itself; depth is below maxDepth.
type renderer struct {
	w         *warnings
	surf      *surface
	actions   actionSet
	dupWarn   map[string]bool // action ids already warned about
	fields    []any           // form fields in document order
	fieldIDs  map[string]bool
	fieldNext map[string]int
	marked    bool   // the form marker was emitted
	heading   string // first h1..h5 text met, the fallback title

	rendered, bytes int
	budgetWarned    bool
	stack           []childRef // instances being rendered, for cycle detection
}

func newRenderer(w *warnings) *renderer {
	return &renderer{w: w, dupWarn: map[string]bool{}, fieldIDs: map[string]bool{}, fieldNext: map[string]int{}}
}

// charge spends n bytes of the output budget; false once it is exhausted.
func (r *renderer) charge(n int) bool {
	r.bytes += n
	if r.bytes <= maxOutputBytes {
		return true
	}
	r.exhausted("output budget of %d bytes", maxOutputBytes)
	return false
}

func (r *renderer) exhausted(format string, args ...any) {
	if !r.budgetWarned {
		r.budgetWarned = true
		r.w.add("%s exhausted; the rest of the page is not rendered", fmt.Sprintf(format, args...))
	}
}

// render renders one component instance; parent names the referring component.
func (r *renderer) render(ref childRef, depth int, parent string) []*node {
	c, ok := r.surf.comps[ref.id]
	if !ok {
		if parent == "" {
			r.w.add("root component %q not found", ref.id)
		} else {
			r.w.add("component %s: child %q not found", parent, ref.id)
		}
		return nil
	}
	for i, f := range r.stack {
		if f == ref {
			chain := make([]string, 0, len(r.stack)-i+1)
			for _, s := range r.stack[i:] {
				chain = append(chain, s.id)
			}
			chain = append(chain, ref.id)
			r.w.add("component %s: cycle in children references (%s); not rendered again", parent, strings.Join(chain, " → "))
			return nil
		}
	}
	if depth >= maxDepth {
		r.w.add("component %s: nested deeper than %d levels; not rendered", ref.id, maxDepth)
		return nil
	}
	if r.rendered++; r.rendered > maxRendered {
		r.exhausted("limit of %d rendered components", maxRendered)
		return nil
	}
	if !r.charge(c.size) {
		return nil
	}
	r.stack = append(r.stack, ref)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()
	return r.renderKind(c, ref.scope, depth)
}

func (r *renderer) renderChildren(c *component, scope string, depth int) []*node {
	var out []*node
	for _, ch := range r.children(c, scope) {
		out = append(out, r.render(ch, depth+1, c.id)...)
	}
	return out
}

func (r *renderer) renderKind(c *component, scope string, depth int) []*node {
	p := c.props
	switch c.kind {
	case "Text":
		return r.textBlock(c, scope)
	case "Image":
		url := r.text(firstPresent(p, "url", "src"), scope, c.id)
		if url == "" {
			r.w.add("component %s: Image has no url; skipped", c.id)
			return nil
		}
		d := map[string]any{"url": url}
		if alt := r.text(firstPresent(p, "description", "altText", "alt"), scope, c.id); alt != "" {
			d["alt"] = alt
		}
		return []*node{leaf("image", d)}
	case "Video", "AudioPlayer":
		url := r.text(firstPresent(p, "url", "src"), scope, c.id)
		if url == "" {
			r.w.add("component %s: %s has no url; skipped", c.id, c.kind)
			return nil
		}
		d := map[string]any{"url": url, "embed_type": "video"}
		if c.kind == "AudioPlayer" {
			d["embed_type"] = "audio"
		}
		if t := r.text(p["description"], scope, c.id); t != "" {
			d["title"] = t
		}
		return []*node{leaf("embed", d)}
	case "Icon":
		return []*node{leaf("text", map[string]any{"content": iconGlyph(r.iconName(c, scope))})}
	case "Divider":
		return []*node{leaf("divider", nil)}
	case "Row":
		refs := r.children(c, scope)
		cols := make([]*column, 0, len(refs))
		for _, ch := range refs {
			cols = append(cols, &column{weight: r.weight(ch.id), blocks: r.render(ch, depth+1, c.id)})
		}
		return []*node{{typ: "layout", data: map[string]any{}, columns: cols}}
	case "Column":
		return r.renderChildren(c, scope, depth) // a column stacks: its children join the enclosing list
	case "List":
		return []*node{{typ: "group", data: map[string]any{}, blocks: r.renderChildren(c, scope, depth)}}
	case "Card":
		d := map[string]any{}
		if t := r.text(p["title"], scope, c.id); t != "" {
			d["title"] = t
		}
		return []*node{{typ: "group", data: d, blocks: r.renderChildren(c, scope, depth)}}
	case "Tabs":
		return r.tabs(c, scope, depth)
	case "Modal":
		return r.modal(c, scope, depth)
	case "Button":
		r.button(c, scope)
		return nil
	case "TextField", "CheckBox", "ChoicePicker", "MultipleChoice", "Slider", "DateTimeInput":
		return r.input(c, scope)
	}
	return r.generic(c, scope, depth)
}

// textBlock maps Text: variants h1..h5 become a rich_text Markdown heading of
// that level, anything else a text block.
func (r *renderer) textBlock(c *component, scope string) []*node {
	txt := r.text(c.props["text"], scope, c.id)
	variant := firstString(c.props, "variant", "usageHint")
	if len(variant) == 2 && variant[0] == 'h' && variant[1] >= '1' && variant[1] <= '5' {
		h := stripHeadingMarks(txt)
		if h == "" {
			return nil
		}
		if r.heading == "" {
			r.heading = firstLine(h)
		}
		return []*node{leaf("rich_text", map[string]any{"content": strings.Repeat("#", int(variant[1]-'0')) + " " + h})}
	}
	if strings.TrimSpace(txt) == "" {
		return nil
	}
	return []*node{leaf("text", map[string]any{"content": txt})}
}

// stripHeadingMarks removes a Markdown heading prefix ("## ") the agent may
// already have written, so the variant decides the level.
func stripHeadingMarks(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimLeft(s, "#"); len(t) < len(s) && (t == "" || t[0] == ' ') {
		s = strings.TrimSpace(t)
	}
	return s
}

// weight reads a Row child's weight; missing or invalid weights count as 1.
func (r *renderer) weight(id string) float64 {
	c, ok := r.surf.comps[id]
	if !ok || c.props["weight"] == nil {
		return 1
	}
	f, ok := number(c.props["weight"])
	if !ok || f <= 0 {
		r.w.add("component %s: weight must be a positive number; using 1", id)
		return 1
	}
	return min(max(f, 1e-6), 1e6)
}

func (r *renderer) tabs(c *component, scope string, depth int) []*node {
	list, _ := firstPresent(c.props, "tabs", "tabItems").([]any)
	n := &node{typ: "tab", data: map[string]any{}}
	for i, e := range list {
		m, ok := asMap(e)
		if !ok {
			r.w.add("component %s: tabs[%d] is not an object; skipped", c.id, i)
			continue
		}
		label := r.text(firstPresent(m, "title", "label"), scope, c.id)
		if label == "" {
			label = fmt.Sprintf("Tab %d", i+1)
		}
		var bl []*node
		if child := str(m, "child"); child != "" {
			bl = r.render(childRef{child, scope}, depth+1, c.id)
		}
		n.tabs = append(n.tabs, &tabPane{label: label, blocks: bl})
	}
	if len(n.tabs) == 0 {
		r.w.add("component %s: Tabs has no tabs; skipped", c.id)
		return nil
	}
	return []*node{n}
}

// modal maps Modal to a collapsed group titled by its trigger's label.
func (r *renderer) modal(c *component, scope string, depth int) []*node {
	d := map[string]any{"collapsible": true, "default_collapsed": true}
	if t := firstString(c.props, "trigger", "entryPointChild"); t != "" {
		if l := r.label(t, scope, 0); l != "" {
			d["title"] = l
		}
	}
	var bl []*node
	if id := firstString(c.props, "content", "contentChild"); id != "" {
		bl = r.render(childRef{id, scope}, depth+1, c.id)
	}
	return []*node{{typ: "group", data: d, blocks: bl}}
}

// button turns a Button into a page action: action_id from action.event.name
// (v0.9), action.name (v0.8) or functionCall.call, else the component id;
// label from its child's text.
func (r *renderer) button(c *component, scope string) {
	var id string
	switch a := c.props["action"].(type) {
	case string:
		id = a
	case map[string]any:
		if ev, ok := asMap(a["event"]); ok {
			id = str(ev, "name")
		}
		if id == "" {
			id = str(a, "name")
		}
		if fc, ok := asMap(a["functionCall"]); ok && id == "" {
			id = str(fc, "call")
		}
	}
	if id = strings.TrimSpace(id); id == "" {
		id = c.id
	}
	label := ""
	if child := str(c.props, "child"); child != "" {
		label = r.label(child, scope, 0)
	}
	if label == "" {
		label = r.text(firstPresent(c.props, "label", "text"), scope, c.id)
	}
	if label == "" {
		label = id
	}
	if !r.actions.add(Action{ActionID: id, Label: label, Style: buttonStyle(c.props)}) && !r.dupWarn[id] {
		r.dupWarn[id] = true
		r.w.add("component %s: action %q is already on the page; duplicate button dropped", c.id, id)
	}
}

func buttonStyle(p map[string]any) string {
	if p["primary"] == true {
		return "primary"
	}
	switch str(p, "variant") {
	case "primary", "filled":
		return "primary"
	case "danger", "destructive":
		return "danger"
	case "borderless", "secondary", "outlined", "text":
		return "secondary"
	}
	return ""
}

// label is the plain text of a small subtree (a Button or Modal trigger
// child): Text and Icon directly, containers through at most 8 explicit
// children on 3 levels.
func (r *renderer) label(id, scope string, depth int) string {
	c, ok := r.surf.comps[id]
	if !ok || depth > 3 {
		return ""
	}
	switch c.kind {
	case "Text":
		return firstLine(stripHeadingMarks(r.text(c.props["text"], scope, c.id)))
	case "Icon":
		return ""
	}
	var parts []string
	for i, ch := range staticRefs(c) {
		if i == 8 {
			break
		}
		if s := r.label(ch, scope, depth+1); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// generic keeps an unknown component visible: a block whose type is the
// component name lowercased and whose data are its props (bindings resolved),
// followed by its rendered children.
func (r *renderer) generic(c *component, scope string, depth int) []*node {
	typ := genericType(c.kind)
	r.w.add("component %s: unknown component type %q; shown as a generic %q block", c.id, c.kind, typ)
	d := make(map[string]any, len(c.props))
	for k, v := range c.props {
		switch k {
		case "children", "child":
			d[k] = v
		default:
			d[k] = r.resolve(v, scope, c.id)
		}
	}
	return append([]*node{leaf(typ, d)}, r.renderChildren(c, scope, depth)...)
}

// genericType lowercases a component name, keeping [a-z0-9_-].
func genericType(kind string) string {
	var b strings.Builder
	for _, ch := range strings.ToLower(kind) {
		switch {
		case ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9', ch == '_', ch == '-':
			b.WriteRune(ch)
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

func firstPresent(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}
