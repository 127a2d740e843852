// Package templates is the built-in catalog of page templates (spec 4.4): named page
// shapes an agent fills with variables instead of writing blocks. It is pure: no
// actors, no HTTP, no storage.
//
// Invariant: a variable is data, never markup. Blocks are built as Go values and
// encoded to JSON (a variable never lands in raw JSON text), and a variable that
// lands in a Markdown field is escaped (Markdown) so it shows exactly as sent.
package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// Variable is one input of a template, as GET /v1/templates lists it.
type Variable struct {
	Key         string   `json:"key"`
	Label       string   `json:"label"`
	Required    bool     `json:"required"`
	Type        string   `json:"type"` // one of Types
	Description string   `json:"description,omitempty"`
	Options     []string `json:"options,omitempty"` // enum: the allowed values
	Default     any      `json:"default,omitempty"` // used when the variable is absent
}

// Template is one entry of the catalog.
type Template struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Variables   []Variable `json:"variables"`
	build       func(v values) Page
}

// Page is what a template renders: the fields of a page request body.
type Page struct {
	Title    string
	PageType string
	Summary  string
	Priority string
	Blocks   []blocks.Block
	Actions  []Action
}

// Action is a page button.
type Action struct {
	ActionID string
	Label    string
	Style    string
}

// catalog is the built-in set, sorted by name.
var catalog = func() []*Template {
	list := []*Template{approval(), deployReview(), incidentReport(), dataReview(), expenseApproval()}
	slices.SortFunc(list, func(a, b *Template) int { return strings.Compare(a.Name, b.Name) })
	return list
}()

// All lists the templates sorted by name.
func All() []*Template { return slices.Clone(catalog) }

// Names lists the template names, sorted.
func Names() []string {
	out := make([]string, len(catalog))
	for i, t := range catalog {
		out[i] = t.Name
	}
	return out
}

// Lookup finds a template by its exact name.
func Lookup(name string) (*Template, bool) {
	for _, t := range catalog {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// NotFound is the 404 for an unknown template name; its details list the
// available names.
func NotFound(name string) *fault.Error {
	if utf8.RuneCountInString(name) > 100 {
		name = string([]rune(name)[:100]) + "…"
	}
	return fault.New(fault.NotFound, fmt.Sprintf("template %q not found; available: %v", name, Names()),
		map[string]any{"resource": "template", "name": name, "available": Names()})
}

// Render checks raw (the request's `variables` object; absent or null is {}) against
// the template's variables and builds the page. A missing required variable or a
// value of the wrong type is a 400 naming `variables.<key>`; a key the template does
// not know is ignored with a warning.
func (t *Template) Render(raw json.RawMessage) (Page, []string, error) {
	vals, warnings, err := t.parse(raw)
	if err != nil {
		return Page{}, nil, err
	}
	p := t.build(vals)
	p.Title = clip(p.Title, maxTitle)
	return p, warnings, nil
}

// maxTitle is the page title limit (the page's own limit is checked again on create).
const maxTitle = 200

// block encodes data as a block's data object. Values are Go values, so whatever a
// variable holds stays a JSON string value.
func block(typ string, data map[string]any) blocks.Block {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		panic("templates: block data does not encode: " + err.Error()) // only Go values built here
	}
	return blocks.Block{Type: typ, Data: json.RawMessage(bytes.TrimSpace(buf.Bytes()))}
}

// clip shortens s to at most n characters, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
