package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
	"folio/transport/protocols"
)

// POST /v1/publish/a2ui and /v1/publish/ag-ui: translate the body into blocks and
// actions (transport/protocols), then publish an active page exactly as
// POST /v1/publish does; the translator's warnings come before the catalog's.

func (c *content) publishA2UI(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	return c.publishProtocol(w, r, who, protocols.FromA2UI, "a2ui")
}

func (c *content) publishAGUI(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	return c.publishProtocol(w, r, who, protocols.FromAGUI, "ag-ui")
}

func (c *content) publishProtocol(w http.ResponseWriter, r *http.Request, who tenant.Principal, translate func([]byte) (protocols.Page, error), kind string) error {
	s := c.s
	raw, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	tp, err := translate(raw)
	if err != nil {
		return translationError(err)
	}
	var extras pageExtras
	if t := bytes.TrimSpace(raw); t[0] == '{' && json.Valid(t) {
		if err := decodeBytes(t, &extras); err != nil {
			return err
		}
	}
	warnings := tp.Warnings
	title := tp.Title
	if n := utf8.RuneCountInString(title); n > c.d.TitleChars {
		title = string([]rune(title)[:c.d.TitleChars-1]) + "…"
		warnings = append(warnings, fmt.Sprintf("title: %d characters shortened to the limit of %d", n, c.d.TitleChars))
	}
	// An AG-UI run that ends in an interrupt is an approval page.
	pageType := kind
	if kind == "ag-ui" && len(tp.Actions) > 0 {
		pageType = "approval"
	}
	actions := make([]page.Action, len(tp.Actions))
	for i, a := range tp.Actions {
		actions[i] = page.Action{ActionID: a.ActionID, Label: a.Label, Style: a.Style}
	}
	req := page.Request{Title: &title, PageType: &pageType, Blocks: &tp.Blocks, Actions: &actions}
	extras.onto(&req)
	return s.createWith(w, r, who, &req, true, warnings)
}

// translationError turns a translator's refusal into the 400 envelope naming the
// field and constraint.
func translationError(err error) error {
	var pe *protocols.Error
	if errors.As(err, &pe) {
		return fault.Field(pe.Field, pe.Constraint, "%s", pe.Error())
	}
	return err
}
