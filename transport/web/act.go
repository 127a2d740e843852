package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/status"
)

// maxFormBody bounds a decision posted without JavaScript (the API's body limit).
const maxFormBody = 1 << 20

// act is POST /p/:id/act: the decision form sent by a browser without JavaScript.
// It is the same page.Act the API sends for a person; the form's values are typed by
// the page itself. A danger action is confirmed on a page of its own first. Success
// is 303 back to the page, which now shows the decision; a refusal shows the page
// again with the reason and, for form fields, each field's message.
func (s *Site) act(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	c, ok := s.pageForm(w, r)
	if !ok {
		return nil
	}
	id := ps.ByName("id")
	o, err := s.open(r, id)
	if err != nil {
		return err
	}
	if o == nil {
		s.notFound(w, r)
		return nil
	}
	if o.Gone || o.Gate {
		return s.show(w, r, o, http.StatusOK, nil)
	}
	form := r.PostForm
	action := form.Get("action")
	if action == "" && decideOf(o.Page, page.EffectiveStatus(o.Page, s.c.Now())).FormOnly {
		action = page.SubmitAction
	}
	if a, ok := actionOf(o.Page, action); ok && (a.Style == "danger" || a.Confirm) && form.Get("confirm") != "yes" {
		return s.confirm(w, r, o.Page, a, form)
	}
	req := &page.ActionRequest{FormValues: map[string][]string{}}
	req.Actor = &struct {
		Identity  string `json:"identity"`
		AuthToken string `json:"auth_token"`
	}{Identity: form.Get("actor_identity")}
	if c := strings.TrimSpace(form.Get("comment")); c != "" {
		req.Comment = &c
	}
	if v := form.Get("page_version"); v != "" { // the version the page was drawn at
		n, err := strconv.Atoi(v)
		if err != nil {
			return s.show(w, r, o, http.StatusBadRequest, problemOf(fault.Field("page_version", "type", "page_version must be a whole number: reload the page and decide again")))
		}
		req.PageVersion = &n
	}
	for k, v := range form {
		if name, ok := strings.CutPrefix(k, page.FormPrefix); ok {
			req.FormValues[name] = v
		}
	}
	req.Edits = editsOf(o.Page, form)
	if _, err := registry.Call[*page.Result](r.Context(), s.c.Pages, id, &page.Act{Viewer: c.Viewer(), ActionID: action, Req: req}); err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) {
			return err
		}
		o, oerr := s.open(r, id) // the page as it is now (another person may have decided)
		if oerr != nil || o == nil {
			s.notFound(w, r)
			return nil
		}
		return s.show(w, r, o, status.Code(fe), problemOf(fe))
	}
	http.Redirect(w, r, "/p/"+url.PathEscape(id)+"#state", http.StatusSeeOther)
	return nil
}

func actionOf(p *page.Page, id string) (page.Action, bool) {
	for _, a := range p.Actions {
		if a.ActionID == id {
			return a, true
		}
	}
	return page.Action{}, false
}

// confirmView is the page that asks before a danger action, carrying every value of
// the form it interrupts.
type confirmView struct {
	Shell
	ID      string
	Title   string
	Version string // the page version the person saw (page_version), when the form sent one
	Action  actionView
	Values  []formValue
}

type formValue struct{ Name, Value string }

func (s *Site) confirm(w http.ResponseWriter, r *http.Request, p *page.Page, a page.Action, form url.Values) error {
	me, _ := s.me(w, r)
	sh := s.shell("Confirm: " + a.Label)
	sh.Me = me
	v := confirmView{Shell: sh, ID: p.ID, Title: p.Title, Version: form.Get("page_version"),
		Action: actionView{ID: a.ActionID, Label: a.Label, Style: a.Style, Danger: a.Style == "danger", Confirm: true}}
	for k, vals := range form {
		if k == "confirm" || k == "action" {
			continue
		}
		for _, val := range vals {
			v.Values = append(v.Values, formValue{Name: k, Value: val})
		}
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := s.execute(buf, "confirm", v); err != nil {
		return err
	}
	s.writeHTML(w, r, http.StatusOK, buf.Bytes())
	return nil
}

// problemOf turns a refusal into what the page shows: its message and, for form
// data, every failing field with the server's own message.
func problemOf(fe *fault.Error) *problemView {
	p := &problemView{Message: fe.Message}
	if fe.Code == fault.Conflict {
		p.Message = "This page has changed: " + fe.Message + ". Here it is as it stands now."
	}
	if all, ok := fe.Details["errors"].([]map[string]any); ok {
		for _, e := range all {
			id, _ := e["field_id"].(string)
			msg, _ := e["message"].(string)
			p.Fields = append(p.Fields, fieldProblem{FieldID: id, Message: msg})
		}
	}
	return p
}

// sameOrigin refuses a form posted from another site: when the browser says where
// it comes from (Origin, else Referer), it must be this host.
func sameOrigin(r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Header.Get("Referer")
	}
	if from == "" {
		return true
	}
	u, err := url.Parse(from)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
