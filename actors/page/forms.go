package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/model/formats"
)

// Forms: an action carrying form_data on a page with form blocks is checked against
// the fields of every form block on the page (nested ones included) before anything
// is recorded. A failure is a 400 naming details.field = "form_data.<field_id>".
// E-mail, url, date and datetime values are checked by actors/model/formats, so a
// form accepts what a template variable of the same type accepts.

// formField is one field of a form block, as far as submission checks need it.
type formField struct {
	FieldID    string `json:"field_id"`
	Type       string `json:"type"`
	Label      string `json:"label"`
	Required   bool   `json:"required"`
	Validation *struct {
		Min *float64 `json:"min"`
		Max *float64 `json:"max"`
	} `json:"validation"`
	Options []struct {
		Value any `json:"value"`
	} `json:"options"`
	MaxLength *int `json:"max_length"`
}

const maxFormKeys = 500

// formFields collects the fields of every form block in bs, nested blocks
// included; ok reports whether the page has a form block at all. Fields whose data
// is malformed (already reported as warnings at publish) are not enforced.
func formFields(bs []blocks.Block) (fields []formField, ok bool) {
	var walk func(typ string, data json.RawMessage, depth int)
	walk = func(typ string, data json.RawMessage, depth int) {
		if depth > blocks.MaxDepth {
			return
		}
		if typ == "form" {
			ok = true
			var d struct {
				Fields []json.RawMessage `json:"fields"`
			}
			_ = json.Unmarshal(data, &d)
			for _, raw := range d.Fields {
				var f formField
				if json.Unmarshal(raw, &f) == nil && f.FieldID != "" {
					fields = append(fields, f)
				}
			}
			return
		}
		// Only data naming a form can hold one: most blocks are never decoded here.
		if bytes.Contains(data, []byte(`"form"`)) {
			nestedBlocks(data, func(t string, d json.RawMessage) { walk(t, d, depth+1) })
		}
	}
	for _, b := range bs {
		walk(b.Type, b.Data, 1)
	}
	return fields, ok
}

// nestedBlocks calls fn for every block held in data: any array named "blocks" at
// any depth of data (layout columns, group, tab tabs) whose elements have a type.
func nestedBlocks(data json.RawMessage, fn func(typ string, data json.RawMessage)) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return
	}
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if depth > blocks.MaxDepth {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, child := range x {
				if arr, isArr := child.([]any); k == "blocks" && isArr {
					for _, el := range arr {
						m, _ := el.(map[string]any)
						t, _ := m["type"].(string)
						if t == "" {
							continue
						}
						d, _ := json.Marshal(m["data"])
						fn(t, d)
					}
					continue
				}
				visit(child, depth+1)
			}
		case []any:
			for _, el := range x {
				visit(el, depth+1)
			}
		}
	}
	visit(v, 0)
}

// checkFormData validates submitted form_data against the page's form fields. It
// returns the first failure, naming its field; details.errors lists every failing
// field (field, field_id, constraint, message), so a form shows them all at once.
func checkFormData(fields []formField, raw json.RawMessage) error {
	var data map[string]json.RawMessage
	if err := json.Unmarshal(raw, &data); err != nil {
		return fault.Field("form_data", "type", "form_data must be an object")
	}
	if len(data) > maxFormKeys {
		return fault.Limit("form_data", "max_items", maxFormKeys, "form_data has at most %d fields", maxFormKeys)
	}
	byID := map[string]formField{}
	for _, f := range fields {
		if _, dup := byID[f.FieldID]; !dup {
			byID[f.FieldID] = f
		}
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var failed []*fault.Error
	for _, k := range keys {
		if _, ok := byID[k]; !ok {
			failed = append(failed, formErr(k, "unknown_field", "form_data.%s is not a field of this page's form", k))
		}
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.FieldID] {
			continue
		}
		seen[f.FieldID] = true
		v, ok := data[f.FieldID]
		if !ok || isNull(v) {
			if f.Required {
				failed = append(failed, formErr(f.FieldID, "required", "%s is required", f.name()))
			}
			continue
		}
		if err := checkField(f, v); err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	all := make([]map[string]any, len(failed))
	for i, e := range failed {
		all[i] = map[string]any{"field": e.Details["field"], "field_id": e.Details["field_id"], "constraint": e.Details["constraint"], "message": e.Message}
	}
	first := failed[0]
	first.Details["errors"] = all
	return first
}

func formErr(id, constraint, format string, args ...any) *fault.Error {
	e := fault.Field("form_data."+id, constraint, format, args...)
	e.Details["field_id"] = id
	return e
}

// name is what a person calls a field in messages: its label, else its id. The
// error's details.field still names form_data.<field_id> for programs.
func (f formField) name() string {
	if l := strings.TrimSpace(f.Label); l != "" {
		return l
	}
	return f.FieldID
}

// checkField validates one present, non-null value.
func checkField(f formField, v json.RawMessage) *fault.Error {
	id, name := f.FieldID, f.name()
	str := func() (string, *fault.Error) {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", formErr(id, "type", "%s must be a string", name)
		}
		if f.Required && strings.TrimSpace(s) == "" {
			return "", formErr(id, "required", "%s is required", name)
		}
		if f.MaxLength != nil && utf8.RuneCountInString(s) > *f.MaxLength {
			e := formErr(id, "max_length", "%s has at most %d characters", name, *f.MaxLength)
			e.Details["limit"] = *f.MaxLength
			return "", e
		}
		if len(s) > 100_000 {
			e := formErr(id, "max_length", "%s has at most 100000 characters", name)
			e.Details["limit"] = 100_000
			return "", e
		}
		return s, nil
	}
	switch f.Type {
	case "number":
		var n float64
		if json.Unmarshal(v, &n) != nil || math.IsInf(n, 0) {
			return formErr(id, "type", "%s must be a number", name)
		}
		if f.Validation != nil && f.Validation.Min != nil && n < *f.Validation.Min {
			e := formErr(id, "min", "%s must be at least %g", name, *f.Validation.Min)
			e.Details["minimum"] = *f.Validation.Min
			return e
		}
		if f.Validation != nil && f.Validation.Max != nil && n > *f.Validation.Max {
			e := formErr(id, "max", "%s must be at most %g", name, *f.Validation.Max)
			e.Details["maximum"] = *f.Validation.Max
			return e
		}
	case "checkbox":
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return formErr(id, "type", "%s must be true or false", name)
		}
		if f.Required && !b {
			return formErr(id, "required", "%s must be checked", name)
		}
	case "email":
		s, err := str()
		if err != nil || s == "" {
			return err
		}
		if !formats.Email(s) {
			return formErr(id, "email", "%s must be an e-mail address", name)
		}
	case "url":
		s, err := str()
		if err != nil || s == "" {
			return err
		}
		if !formats.WebURL(s) {
			return formErr(id, "url", "%s must be an http(s) URL", name)
		}
	case "date":
		s, err := str()
		if err != nil || s == "" {
			return err
		}
		if _, ok := formats.Date(s); !ok {
			return formErr(id, "date", "%s must be a date such as 2026-05-01", name)
		}
	case "datetime":
		s, err := str()
		if err != nil || s == "" {
			return err
		}
		if _, ok := formats.DateTime(s); !ok {
			return formErr(id, "datetime", "%s must be a date and time such as 2026-05-01T14:30:00Z", name)
		}
	case "select", "radio":
		var x any
		_ = json.Unmarshal(v, &x)
		if !isScalar(x) {
			return formErr(id, "type", "%s must be one option value", name)
		}
		if s, isStr := x.(string); isStr && f.Required && s == "" {
			return formErr(id, "required", "%s is required", name)
		}
		if !f.hasOption(x) {
			return optionErr(f, x)
		}
	case "multi_select":
		var xs []any
		if json.Unmarshal(v, &xs) != nil {
			return formErr(id, "type", "%s must be an array of option values", name)
		}
		if f.Required && len(xs) == 0 {
			return formErr(id, "required", "%s needs at least one option", name)
		}
		seen := map[string]bool{}
		for _, x := range xs {
			if !isScalar(x) || !f.hasOption(x) {
				return optionErr(f, x)
			}
			k := fmt.Sprint(x)
			if seen[k] {
				return formErr(id, "unique", "%s lists %v twice", name, x)
			}
			seen[k] = true
		}
	case "file":
		var s string
		var ss []string
		if json.Unmarshal(v, &s) != nil && json.Unmarshal(v, &ss) != nil {
			return formErr(id, "type", "%s must be a file reference (string) or an array of them", name)
		}
		if f.Required && s == "" && len(ss) == 0 {
			return formErr(id, "required", "%s is required", name)
		}
	case "text", "textarea":
		if _, err := str(); err != nil {
			return err
		}
	default: // a field type the catalog does not know: any value is kept as sent
	}
	return nil
}

func isScalar(x any) bool {
	switch x.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// hasOption compares x with the field's option values (numbers as numbers).
func (f formField) hasOption(x any) bool {
	for _, o := range f.Options {
		if isScalar(o.Value) && o.Value == x {
			return true
		}
	}
	return false
}

func optionErr(f formField, x any) *fault.Error {
	allowed := make([]any, len(f.Options))
	for i, o := range f.Options {
		allowed[i] = o.Value
	}
	e := formErr(f.FieldID, "enum", "%s: %v is not one of the field's options", f.name(), x)
	e.Details["allowed"] = allowed
	return e
}

// FormPrefix is how an HTML form names a form block's field: "form_data.<field_id>".
const FormPrefix = "form_data."

// formDataFromValues builds form_data from an HTML form's values, typed by the
// page's form fields, so that a browser's submission and an agent's JSON are
// checked by the same rules (checkFormData): numbers become numbers (or stay text,
// which the check then refuses with the field's own message), a checkbox is true
// when sent and false when not, a multi_select is the list of its checked options,
// options take their declared type, and an empty optional field is left out. nil
// when the page has no form fields.
func formDataFromValues(p *Page, values map[string][]string) json.RawMessage {
	fields, ok := formFields(p.Blocks)
	if !ok || len(fields) == 0 {
		return nil
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		vals := values[FormPrefix+f.FieldID]
		first := ""
		if len(vals) > 0 {
			first = strings.TrimSpace(vals[0])
		}
		switch f.Type {
		case "checkbox":
			out[f.FieldID] = first != "" && first != "false"
		case "multi_select":
			list := make([]any, 0, len(vals))
			for _, v := range vals {
				list = append(list, f.optionValue(v))
			}
			if len(list) > 0 || f.Required {
				out[f.FieldID] = list
			}
		case "number":
			if first == "" {
				continue
			}
			if n, err := strconv.ParseFloat(first, 64); err == nil {
				out[f.FieldID] = n
			} else {
				out[f.FieldID] = first
			}
		case "select", "radio":
			if first != "" {
				out[f.FieldID] = f.optionValue(first)
			}
		default:
			if first != "" {
				out[f.FieldID] = first
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// optionValue is the option whose value reads as s (an option's value may be a
// number or a boolean); s itself when none does.
func (f formField) optionValue(s string) any {
	n, numErr := strconv.ParseFloat(s, 64)
	for _, o := range f.Options {
		switch v := o.Value.(type) {
		case float64:
			if numErr == nil && v == n {
				return v
			}
		case string, bool:
			if fmt.Sprint(v) == s {
				return v
			}
		}
	}
	return s
}

// HasForm tells whether the page holds a form block (at any depth).
func HasForm(p *Page) bool {
	_, ok := formFields(p.Blocks)
	return ok
}
