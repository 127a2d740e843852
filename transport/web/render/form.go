package render

// The input blocks: form (fields that belong to the page's one <form> element
// through their form attribute, since HTML forms cannot nest and blocks can) and
// buttons (links styled as buttons, and action buttons that submit the page's form).
// The rule they keep: the server is the authority. Fields carry only the native
// constraints the server also checks (required, min/max, maxlength), an empty error
// slot the page script fills with the server's message, and nothing is enabled or
// submittable unless the page takes input now (Ctx.Interactive) and accepts the
// action (Options.Actions).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

func init() {
	register("form", viewForm)
	register("buttons", viewButtons)
}

// ---- buttons ----

type buttonsView struct {
	Vertical bool
	Items    []buttonItem
	More     int
}

type buttonItem struct {
	Kind     string // "link", "submit", "disabled", "text"
	Label    string
	Style    string // primary, secondary, danger
	Href     string
	NewTab   bool
	FormID   string
	ActionID string
	Reason   string // why a disabled button does nothing
}

func viewButtons(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Layout string `json:"layout"`
		Items  []struct {
			Label    Scalar `json:"label"`
			URL      string `json:"url"`
			ActionID Scalar `json:"action_id"`
			Style    string `json:"style"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := buttonsView{Vertical: d.Layout == "vertical"}
	items := d.Items
	if len(items) > maxItems {
		v.More = len(items) - maxItems
		items = items[:maxItems]
	}
	for _, it := range items {
		b := buttonItem{Label: strings.TrimSpace(it.Label.String()), Style: it.Style, ActionID: strings.TrimSpace(it.ActionID.String())}
		if b.Style != "primary" && b.Style != "danger" {
			b.Style = "secondary"
		}
		u, safe := safeURL(it.URL)
		switch {
		case b.ActionID != "" && c.Interactive() && c.Options().Actions[b.ActionID]:
			b.Kind, b.FormID = "submit", c.FormID()
		case safe:
			b.Kind, b.Href, b.NewTab = "link", u, isAbsoluteWeb(u)
		case strings.TrimSpace(it.URL) != "":
			b.Kind = "text" // an address we will not link: its label only
		default:
			b.Kind, b.Reason = "disabled", "not available"
			if !c.Interactive() && b.ActionID != "" {
				b.Reason = "not available: this page takes no input now"
			}
		}
		if b.Label == "" {
			b.Label = humanize(b.ActionID)
			if b.ActionID == "" {
				b.Label = "Button"
			}
		}
		v.Items = append(v.Items, b)
	}
	return v, nil
}

// isAbsoluteWeb reports whether a safe address leads to another site (http or
// https), where links open in a new tab; same-origin paths and mailto do not.
func isAbsoluteWeb(u string) bool {
	l := strings.ToLower(u)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// ---- form ----

type formView struct {
	Fields   []formFieldView
	More     int
	Disabled bool
	FormID   string
	Submit   string // the submit button's label; "" when the form has no button of its own
	Hint     bool   // interactive, no button of its own: the page's action buttons submit it
	Answered bool   // the fields show the answers sent with the decision (Options.Answers)
}

type formFieldView struct {
	Kind        string // input, textarea, select, multi, radio, checkbox, file
	InputType   string // for Kind "input": text, number, date, datetime-local, email, url
	ID          string
	FieldID     string
	Name        string
	Label       string
	Required    bool
	Placeholder string
	MaxLength   int
	Min, Max    string
	Step        string
	Value       string
	Checked     bool
	Options     []formOption
	MoreOptions int
	HasDefault  bool   // a select whose default matched an option
	Hint        string // the native constraint in words ("Up to 80 characters")
	Disabled    bool
	FormID      string
}

type formOption struct {
	ID       string
	Value    string
	Label    string
	Kind     string // "number" or "boolean" when the option's value is not a string
	Selected bool
}

// formValue is a value as the agent wrote it, keeping whether it was a string, a
// number or a boolean (the server compares option values with their JSON type, so
// the page script must send them back typed: data-kind tells it how).
type formValue struct {
	S    string
	Kind string // "string", "number", "boolean", "array"; "" when absent or null
	List []formValue
}

func (v *formValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = formValue{S: s, Kind: "string"}
	case 't', 'f':
		*v = formValue{S: string(b), Kind: "boolean"}
	case '[':
		var list []formValue
		if json.Unmarshal(b, &list) != nil {
			return nil
		}
		*v = formValue{Kind: "array", List: list}
	case 'n', '{':
		*v = formValue{}
	default:
		*v = formValue{S: string(b), Kind: "number"}
	}
	return nil
}

func (v formValue) scalar() bool {
	return v.Kind == "string" || v.Kind == "number" || v.Kind == "boolean"
}

type formFieldData struct {
	FieldID      Scalar    `json:"field_id"`
	Type         string    `json:"type"`
	Label        Scalar    `json:"label"`
	Required     bool      `json:"required"`
	DefaultValue formValue `json:"default_value"`
	Validation   struct {
		Min Number `json:"min"`
		Max Number `json:"max"`
	} `json:"validation"`
	Options []struct {
		Value formValue `json:"value"`
		Label Scalar    `json:"label"`
	} `json:"options"`
	Placeholder Scalar `json:"placeholder"`
	MaxLength   Number `json:"max_length"`
}

func viewForm(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Fields      []formFieldData `json:"fields"`
		SubmitLabel Scalar          `json:"submit_label"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := formView{Disabled: !c.Interactive(), FormID: c.FormID()}
	fields := d.Fields
	// Once decided, a field shows what was sent: the answer replaces the default, and
	// a field left unanswered reads empty rather than showing a default nobody sent.
	var answers map[string]formValue
	if raw := c.Options().Answers; len(raw) > 0 && json.Unmarshal(raw, &answers) == nil && answers != nil {
		v.Answered = true
		for i := range fields {
			fields[i].DefaultValue = answers[strings.TrimSpace(fields[i].FieldID.String())]
		}
	}
	if len(fields) > maxItems {
		v.More = len(fields) - maxItems
		fields = fields[:maxItems]
	}
	used := map[string]bool{}
	for i, f := range fields {
		fv := formField(c, i, f, used)
		fv.Disabled, fv.FormID = v.Disabled || fv.Name == "", v.FormID
		v.Fields = append(v.Fields, fv)
	}
	if c.Interactive() {
		if c.Options().Actions[""] {
			v.Submit = strings.TrimSpace(d.SubmitLabel.String())
			if v.Submit == "" {
				v.Submit = "Submit"
			}
		} else {
			v.Hint = true
		}
	}
	return v, nil
}

// formField builds one field's view. Its DOM id is derived from its field_id (so
// the page script can find a field's error slot from the server's
// details.field_id), made unique when the agent repeated a field_id.
func formField(c *Ctx, i int, f formFieldData, used map[string]bool) formFieldView {
	id := strings.TrimSpace(f.FieldID.String())
	fv := formFieldView{FieldID: id, Required: f.Required, Placeholder: f.Placeholder.String()}
	fv.ID = c.ID("f-" + id)
	if id == "" || used[fv.ID] {
		fv.ID = c.ID(fmt.Sprintf("f%d-%s", i, id))
	}
	used[fv.ID] = true
	if id != "" {
		fv.Name = "form_data." + id
	}
	fv.Label = strings.TrimSpace(f.Label.String())
	if fv.Label == "" {
		fv.Label = humanize(id)
	}
	if f.MaxLength.OK && f.MaxLength.V >= 1 && f.MaxLength.V < 1e9 {
		fv.MaxLength = int(f.MaxLength.V)
	}
	def := f.DefaultValue
	switch f.Type {
	case "textarea":
		fv.Kind = "textarea"
		fv.Value = textDefault(def)
	case "select", "radio", "multi_select":
		fv.Kind = map[string]string{"select": "select", "radio": "radio", "multi_select": "multi"}[f.Type]
		opts := f.Options
		if len(opts) > maxItems {
			fv.MoreOptions = len(opts) - maxItems
			opts = opts[:maxItems]
		}
		for j, o := range opts {
			if !o.Value.scalar() {
				continue
			}
			op := formOption{ID: fmt.Sprintf("%s-o%d", fv.ID, j), Value: o.Value.S, Label: strings.TrimSpace(o.Label.String())}
			if o.Value.Kind != "string" {
				op.Kind = o.Value.Kind
			}
			if op.Label == "" {
				op.Label = o.Value.S
			}
			op.Selected = defaultHas(def, o.Value, fv.Kind == "multi")
			if op.Selected {
				if fv.HasDefault && fv.Kind != "multi" {
					op.Selected = false // one choice only: the first match wins
				}
				fv.HasDefault = fv.HasDefault || op.Selected
			}
			fv.Options = append(fv.Options, op)
		}
	case "checkbox":
		fv.Kind = "checkbox"
		fv.Checked = def.Kind == "boolean" && def.S == "true" || def.Kind == "string" && strings.EqualFold(def.S, "true")
	case "file":
		fv.Kind = "file"
	case "number":
		fv.Kind, fv.InputType = "input", "number"
		if x, ok := finite(f.Validation.Min); ok {
			fv.Min = strconv.FormatFloat(x, 'f', -1, 64)
		}
		if x, ok := finite(f.Validation.Max); ok {
			fv.Max = strconv.FormatFloat(x, 'f', -1, 64)
		}
		fv.Step = "any"
		if def.Kind == "number" || def.Kind == "string" {
			if x, err := strconv.ParseFloat(strings.TrimSpace(def.S), 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
				fv.Value = strconv.FormatFloat(x, 'f', -1, 64)
			}
		}
	case "date":
		fv.Kind, fv.InputType = "input", "date"
		if w, ok := parseWhen(def.S); ok && def.Kind == "string" {
			fv.Value = w.T.Format("2006-01-02")
		}
	case "datetime":
		fv.Kind, fv.InputType = "input", "datetime-local"
		if w, ok := parseWhen(def.S); ok && def.Kind == "string" {
			fv.Value = w.T.Format("2006-01-02T15:04")
		}
	case "email", "url":
		fv.Kind, fv.InputType = "input", f.Type
		fv.Value = textDefault(def)
	default: // text, and any type the catalog does not know
		fv.Kind, fv.InputType = "input", "text"
		fv.Value = textDefault(def)
	}
	if fv.Kind != "input" && fv.Kind != "textarea" {
		fv.MaxLength, fv.Placeholder = 0, ""
	}
	if fv.InputType == "number" || fv.InputType == "date" || fv.InputType == "datetime-local" {
		fv.MaxLength = 0
	}
	switch {
	case fv.Min != "" && fv.Max != "":
		fv.Hint = "From " + fv.Min + " to " + fv.Max
	case fv.Min != "":
		fv.Hint = "At least " + fv.Min
	case fv.Max != "":
		fv.Hint = "At most " + fv.Max
	case fv.MaxLength == 1:
		fv.Hint = "Up to 1 character"
	case fv.MaxLength > 1:
		fv.Hint = "Up to " + formatNumber(float64(fv.MaxLength)) + " characters"
	}
	return fv
}

func textDefault(v formValue) string {
	if v.scalar() {
		return v.S
	}
	return ""
}

// defaultHas reports whether the default value names option o: the same value
// compared as text (a select's value is text in HTML), or, for multiple choice, a
// default array holding it.
func defaultHas(def, o formValue, multi bool) bool {
	if def.Kind == "array" {
		if !multi {
			return false
		}
		for _, x := range def.List {
			if x.scalar() && x.S == o.S {
				return true
			}
		}
		return false
	}
	return def.scalar() && def.S == o.S
}

func finite(n Number) (float64, bool) {
	if !n.OK || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return 0, false
	}
	return n.V, true
}
