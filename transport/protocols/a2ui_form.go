package protocols

import (
	"fmt"
	"strings"
)

// Inputs (TextField, CheckBox, ChoicePicker, Slider, DateTimeInput and the
// v0.8 MultipleChoice) all become fields of ONE form block, in document order.
// The first input leaves a marker node; finishNodes puts the form there (or
// right after the layout holding it).

func (r *renderer) input(c *component, scope string) []*node {
	r.fields = append(r.fields, r.field(c, scope))
	if r.marked {
		return nil
	}
	r.marked = true
	return []*node{{marker: true}}
}

// formNode is the form collecting every input, or nil when there was none.
func (r *renderer) formNode() *node {
	if len(r.fields) == 0 {
		return nil
	}
	return leaf("form", map[string]any{"fields": r.fields})
}

// field maps one input component to a form field (spec 2.6 form).
func (r *renderer) field(c *component, scope string) map[string]any {
	p := c.props
	id := r.fieldID(c.id)
	label := r.text(firstPresent(p, "label", "description"), scope, c.id)
	if label == "" {
		label = c.id
	}
	f := map[string]any{"field_id": id, "label": label}
	value := r.resolve(firstPresent(p, "value", "text", "selections"), scope, c.id)
	switch c.kind {
	case "TextField":
		f["type"] = textFieldType(firstString(p, "variant", "textFieldType", "type"))
		if s := scalarText(value); s != "" {
			f["default_value"] = s
		}
	case "CheckBox":
		f["type"] = "checkbox"
		if b, ok := value.(bool); ok {
			f["default_value"] = b
		}
	case "ChoicePicker", "MultipleChoice":
		multi := str(p, "variant") == "multipleSelection"
		if c.kind == "MultipleChoice" {
			n, ok := number(p["maxAllowedSelections"])
			multi = !ok || n != 1
		}
		switch {
		case multi:
			f["type"] = "multi_select"
		case p["filterable"] == true:
			f["type"] = "select"
		default:
			f["type"] = "radio" // A2UI shows every option at once, like radio buttons
		}
		f["options"] = r.options(c, scope)
		if list, ok := value.([]any); ok && len(list) > 0 {
			if multi {
				f["default_value"] = list
			} else {
				f["default_value"] = list[0]
			}
		} else if s, ok := value.(string); ok && s != "" {
			f["default_value"] = s
		}
	case "Slider":
		f["type"] = "number"
		v := map[string]any{"min": 0}
		if m := r.resolve(firstPresent(p, "min", "minValue"), scope, c.id); m != nil {
			if _, ok := number(m); ok {
				v["min"] = m
			}
		}
		if m := r.resolve(firstPresent(p, "max", "maxValue"), scope, c.id); m != nil {
			if _, ok := number(m); ok {
				v["max"] = m
			}
		}
		f["validation"] = v
		if _, ok := number(value); ok {
			f["default_value"] = value
		}
	case "DateTimeInput":
		f["type"] = "date"
		if p["enableTime"] == true {
			f["type"] = "datetime" // time-only pickers too: the spec has no time field
		}
		if s := scalarText(value); s != "" {
			f["default_value"] = s
		}
	}
	if requiredCheck(p) {
		f["required"] = true
	}
	return f
}

// fieldID returns base, or base_2, base_3... when taken (templated inputs
// repeat an id); fieldNext remembers the next suffix so this stays linear.
func (r *renderer) fieldID(base string) string {
	n := r.fieldNext[base]
	for {
		id := base
		if n > 1 {
			id = fmt.Sprintf("%s_%d", base, n)
		}
		if !r.fieldIDs[id] {
			r.fieldIDs[id] = true
			r.fieldNext[base] = max(n+1, 2)
			return id
		}
		n = max(n+1, 2)
	}
}

func textFieldType(variant string) string {
	switch variant {
	case "longText":
		return "textarea"
	case "number":
		return "number"
	case "date":
		return "date"
	case "email":
		return "email"
	case "url":
		return "url"
	}
	return "text" // shortText, obscured and anything else
}

// options reads [{label, value}]; labels may be bound.
func (r *renderer) options(c *component, scope string) []any {
	list, _ := r.resolve(c.props["options"], scope, c.id).([]any)
	out := make([]any, 0, len(list))
	for i, e := range list {
		var value, label string
		if m, ok := asMap(e); ok {
			value = scalarText(m["value"])
			label = r.text(m["label"], scope, c.id)
		} else {
			value = scalarText(e)
		}
		if value == "" {
			r.w.add("component %s: options[%d] has no value; skipped", c.id, i)
			continue
		}
		if label == "" {
			label = value
		}
		out = append(out, map[string]any{"value": value, "label": label})
	}
	return out
}

// requiredCheck reports a v0.9 "required" check (or a literal required: true).
func requiredCheck(p map[string]any) bool {
	if p["required"] == true {
		return true
	}
	list, _ := p["checks"].([]any)
	for _, e := range list {
		if m, ok := asMap(e); ok && strings.EqualFold(str(m, "call"), "required") {
			return true
		}
	}
	return false
}
