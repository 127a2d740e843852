package web

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/status"
)

// The keys screen: the workspace's API keys, the form that makes one, and revoking
// one after a confirmation. A new key's full value is on the answer to the post that
// made it and nowhere else: it is never stored (only its SHA-256) nor shown again.

// mountKeys registers the dashboard's keys screen.
func (s *Site) mountKeys(r Router) {
	r.Handle("GET", "/keys", s.serve(s.keysScreen))
	r.Handle("POST", "/keys", s.serve(s.createKey))
	r.Handle("POST", "/keys/:id/revoke", s.serve(s.revokeKey))
}

// keysView is the keys screen.
type keysView struct {
	dashShell
	Keys   []keyRow
	New    *newKeyView // the key just made, on the answer to its post only
	Form   keyForm
	Notice string
	CSRF   string
	Action string // where the form posts (the workspace's address)
}

type keyRow struct {
	ID, Name, Prefix, Mode string
	Revoke                 string // where its revoke form posts
	CreatedAt              time.Time
	LastUsedAt             *time.Time
	LastLive               bool // the workspace's only live key
}

// keyForm is the new-key form as sent, with each field's refusal.
type keyForm struct {
	Name, Mode           string
	NameError, ModeError string
}

type newKeyView struct {
	Name, Mode, Secret string
}

// keyNotices are the messages a redirect to /keys may ask for (?done=); the text is
// the server's own, never taken from the address.
var keyNotices = map[string]string{
	"revoked": "The key was revoked. Requests made with it are refused from now on.",
}

// keysScreen is GET /keys.
func (s *Site) keysScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	v, err := s.keysOf(r, d)
	if err != nil {
		return err
	}
	v.Notice = keyNotices[r.URL.Query().Get("done")]
	s.render(w, r, http.StatusOK, "keys", v)
	return nil
}

// keysOf reads the workspace's keys into a fresh keys screen.
func (s *Site) keysOf(r *http.Request, d *desk) (keysView, error) {
	keys, err := registry.Call[[]tenant.KeyView](r.Context(), s.c.Tenants, d.ws.ID, &tenant.ListKeys{})
	if err != nil {
		return keysView{}, err
	}
	v := keysView{dashShell: s.dashShell(d, "keys", "API keys"), CSRF: d.me.CSRF, Form: keyForm{Mode: "live"}, Action: d.link("/keys", nil)}
	live := 0
	for _, k := range keys {
		row := keyRow{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Mode: keyMode(k.Test), CreatedAt: k.CreatedAt,
			Revoke: d.link("/keys/"+url.PathEscape(k.ID)+"/revoke", nil)}
		if !k.LastUsedAt.IsZero() {
			t := k.LastUsedAt
			row.LastUsedAt = &t
		}
		if !k.Test {
			live++
		}
		v.Keys = append(v.Keys, row)
	}
	for i := range v.Keys {
		v.Keys[i].LastLive = live == 1 && v.Keys[i].Mode == "live"
	}
	return v, nil
}

func keyMode(test bool) string {
	if test {
		return "test"
	}
	return "live"
}

// keyFieldMessages are the refusals of tenant.CheckNewKey as the form says them.
var keyFieldMessages = map[string]string{
	"required":   "Give the key a name, such as the agent or the place that will use it.",
	"max_length": "A key's name has at most 100 characters.",
	"enum":       "Choose live or test.",
}

// createKey is POST /keys (name, mode): the same rules and the same TenantActor
// message as POST /v1/account/api-keys. The answer is the keys screen itself, with
// the new key in full, not a redirect: a redirect would have to carry the key to a
// second request. It is never cached (no-store).
func (s *Site) createKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	d, ok := s.desk(w, r)
	if !ok || !s.csrfOK(w, r, d.cred) {
		return nil
	}
	form := keyForm{Name: r.PostFormValue("name"), Mode: r.PostFormValue("mode")}
	name, test, err := tenant.CheckNewKey(form.Name, form.Mode)
	var created *tenant.CreatedKey
	if err == nil {
		created, err = registry.Call[*tenant.CreatedKey](r.Context(), s.c.Tenants, d.ws.ID, &tenant.CreateKey{Name: name, Test: test})
	}
	var fe *fault.Error
	if err != nil && !errors.As(err, &fe) {
		return err
	}
	v, lerr := s.keysOf(r, d)
	if lerr != nil {
		return lerr
	}
	if fe != nil {
		field, _ := fe.Details["field"].(string)
		msg := keyFieldMessages[constraintOf(fe)]
		if msg == "" {
			msg = fe.Message
		}
		switch field {
		case "name":
			form.NameError = msg
		case "mode":
			form.ModeError = msg
		default:
			s.notice(w, r, status.Code(fe), "The key was not made", fe.Message)
			return nil
		}
		if form.Mode != "test" {
			form.Mode = "live"
		}
		v.Form = form
		s.render(w, r, status.Code(fe), "keys", v)
		return nil
	}
	v.New = &newKeyView{Name: created.Key.Name, Mode: keyMode(created.Key.Test), Secret: created.Secret}
	buf := getBuf()
	defer putBuf(buf)
	if err := s.execute(buf, "keys", v); err != nil {
		return err
	}
	// The page holds a secret: never stored by any cache, and sent as it is (no
	// ETag, no compression of a secret next to text the sender chose).
	s.pageHeaders(w.Header())
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}

func constraintOf(fe *fault.Error) string {
	c, _ := fe.Details["constraint"].(string)
	return c
}

// revokeView asks before a key is revoked (the form posted without confirm=yes).
type revokeView struct {
	dashShell
	Key  keyRow
	CSRF string
	Back string
}

// revokeKey is POST /keys/:id/revoke. Without confirm=yes it answers a page that
// asks first (the page script asks in a dialog instead and posts confirm=yes); with
// it, the key is deleted (TenantActor DeleteKey: the next request made with it is
// refused) and the screen comes back with a notice.
func (s *Site) revokeKey(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	d, ok := s.desk(w, r)
	if !ok || !s.csrfOK(w, r, d.cred) {
		return nil
	}
	id := ps.ByName("id")
	if r.PostFormValue("confirm") != "yes" {
		v, err := s.keysOf(r, d)
		if err != nil {
			return err
		}
		for _, k := range v.Keys {
			if k.ID == id {
				s.render(w, r, http.StatusOK, "key-revoke", revokeView{dashShell: s.dashShell(d, "keys", "Revoke “"+k.Name+"”?"),
					Key: k, CSRF: d.me.CSRF, Back: d.link("/keys", nil)})
				return nil
			}
		}
		s.notice(w, r, http.StatusNotFound, "No such key", "This workspace has no such key: it may have been revoked already.")
		return nil
	}
	_, err := registry.Call[*tenant.KeyDeleted](r.Context(), s.c.Tenants, d.ws.ID, &tenant.DeleteKey{KeyID: id})
	var fe *fault.Error
	switch {
	case err == nil:
		http.Redirect(w, r, d.link("/keys", url.Values{"done": {"revoked"}}), http.StatusSeeOther)
	case errors.As(err, &fe) && fe.Code == fault.NotFound:
		s.notice(w, r, http.StatusNotFound, "No such key", "This workspace has no such key: it may have been revoked already.")
	case errors.As(err, &fe):
		s.notice(w, r, status.Code(fe), "The key was not revoked", fe.Message)
	default:
		return err
	}
	return nil
}
