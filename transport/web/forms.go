package web

import (
	"errors"
	"net/http"

	"folio/transport/credential"
)

// readForm reads a posted form of at most maxFormBody bytes; a refusal has been
// written when it returns false.
func (s *Site) readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.notice(w, r, http.StatusRequestEntityTooLarge, "That was too large",
				"The form is larger than 1 MiB. Go back, shorten the longest answers and send it again.")
			return false
		}
		s.notice(w, r, http.StatusBadRequest, "The form could not be read", "Go back to the page and send it again from there.")
		return false
	}
	return true
}

// pageForm admits a form posted to a review page (a decision, a comment): sent
// from this site, read within maxFormBody, its sender resolved and, for a session,
// its CSRF token checked. A refusal has been written when ok is false.
func (s *Site) pageForm(w http.ResponseWriter, r *http.Request) (c credential.Credential, ok bool) {
	if !sameOrigin(r) {
		http.Error(w, "This form was sent from another site.", http.StatusForbidden)
		return c, false
	}
	if !s.readForm(w, r) {
		return c, false
	}
	c, err := s.c.Credentials.Of(w, r)
	if err != nil {
		s.failed(w, r, err)
		return c, false
	}
	return c, s.csrfOK(w, r, c)
}

// csrfOK checks a form posted with the session cookie against the session's CSRF
// token (credential.CheckForm); a refusal is written when it returns false.
func (s *Site) csrfOK(w http.ResponseWriter, r *http.Request, c credential.Credential) bool {
	if err := credential.CheckForm(r, c); err != nil {
		s.notice(w, r, http.StatusForbidden, "This form was sent from another site",
			"Folio refused it: a form that acts for you must come from Folio's own page. Go back to the page and send it from there.")
		return false
	}
	return true
}

// noticeView is a page with a title and a message.
type noticeView struct {
	Shell
	Heading, Message string
}

func (s *Site) notice(w http.ResponseWriter, r *http.Request, status int, heading, message string) {
	me, _ := s.me(w, r)
	v := noticeView{Shell: s.shell(heading), Heading: heading, Message: message}
	v.Me = me
	s.render(w, r, status, "notice", v)
}

// render executes a page template into a pooled buffer and writes it.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, name string, model any) {
	buf := getBuf()
	defer putBuf(buf)
	if err := s.execute(buf, name, model); err != nil {
		s.failed(w, r, err)
		return
	}
	s.writeHTML(w, r, status, buf.Bytes())
}
