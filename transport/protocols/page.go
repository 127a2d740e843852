package protocols

import (
	"fmt"

	"folio/actors/model/blocks"
)

// Action is a page button (spec 2.3).
type Action struct {
	ActionID string `json:"action_id"`
	Label    string `json:"label"`
	Style    string `json:"style,omitempty"` // primary, danger, secondary
}

// Page is the result of a translation: a title, top-level blocks in document
// order, page actions (unique by ActionID) and advisory warnings.
type Page struct {
	Title    string
	Blocks   []blocks.Block
	Actions  []Action
	Warnings []string
}

// Error is a request the translator cannot turn into a page at all (malformed JSON,
// wrong top-level shape, no title obtainable...). Field is a JSON path, Constraint a short word.
type Error struct{ Field, Constraint, Message string }

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s (%s)", e.Message, e.Constraint)
	}
	return fmt.Sprintf("%s: %s (%s)", e.Field, e.Message, e.Constraint)
}

func newError(field, constraint, format string, args ...any) *Error {
	return &Error{Field: field, Constraint: constraint, Message: fmt.Sprintf(format, args...)}
}

// Limits that keep the work of one translation bounded whatever the input.
const (
	maxWarnings      = 100     // warnings kept; the rest are counted in one last line
	maxComponents    = 10000   // A2UI components accepted per request
	maxDepth         = 64      // nesting of rendered A2UI components
	maxTemplateItems = 1000    // items one A2UI template expands to
	maxRendered      = 10000   // A2UI component instances rendered per request
	maxOutputBytes   = 8 << 20 // bytes of props and bound values rendered per request
	maxPointerTokens = 128     // tokens in one JSON pointer
	maxPrettyDepth   = 32      // deeper JSON is shown compact (indentation is quadratic in depth)
	maxCopyNodes     = 1 << 17 // JSON values duplicated by JSON Patch "copy" per request
	maxA2UINesting   = 4       // A2UI payloads nested in A2UI payloads (messages/operations keys)
)

// warnings collects advisory strings, keeping at most maxWarnings.
type warnings struct {
	list    []string
	dropped int
}

func (w *warnings) add(format string, args ...any) {
	if len(w.list) >= maxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

// addPrefixed appends warnings produced by a nested translation.
func (w *warnings) addPrefixed(prefix string, list []string) {
	for _, s := range list {
		w.add("%s%s", prefix, s)
	}
}

func (w *warnings) result() []string {
	if w.dropped == 0 {
		return w.list
	}
	return append(w.list, fmt.Sprintf("%d more warnings suppressed", w.dropped))
}

// actionSet keeps page actions unique by action_id, first one wins.
type actionSet struct {
	list []Action
	seen map[string]bool
}

// add reports whether the action was new.
func (s *actionSet) add(a Action) bool {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.seen[a.ActionID] {
		return false
	}
	s.seen[a.ActionID] = true
	s.list = append(s.list, a)
	return true
}
