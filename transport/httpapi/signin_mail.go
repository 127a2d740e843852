package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"folio/actors/callback"
	"folio/actors/model/ids"
	"folio/actors/people"
)

// mailJob is a sign-in or claim mail waiting to be decided and sent.
type mailJob struct {
	kind     string // people.PurposeSignIn, people.PurposeClaim
	email    string
	pageID   string
	redirect string
	tenantID string // claim
	name     string // claim: the agent's name
	code     string // claim: its claim code
}

// enqueue hands j to the mail loop without waiting; when the queue is full the
// mail is dropped and logged (the person can ask again), never the request slowed.
func (si *signin) enqueue(j mailJob) {
	select {
	case si.mails <- j:
	default:
		si.log.Warn("sign-in mail dropped: the queue is full", slog.String("kind", j.kind))
	}
}

// run sends queued mails with two workers until stop closes. Sign-in mails carry a
// credential, so they are never written to the delivery log a page's owner reads;
// one that cannot be sent after three attempts is logged and dropped.
func (si *signin) run(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				case j := <-si.mails:
					switch j.kind {
					case people.PurposeClaim:
						si.deliverClaim(ctx, j)
					default:
						si.deliverLink(ctx, j)
					}
				}
			}
		}()
	}
	<-stop
	cancel()
	<-done
	<-done
}

// send tries a mail three times (at once, after 2 s, after 10 s).
func (si *signin) send(ctx context.Context, m *callback.Mail) {
	id := "auth_" + ids.Random(16)
	for i, wait := range []time.Duration{0, 2 * time.Second, 10 * time.Second} {
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := si.d.Mailer.Send(actx, m, id, si.now())
		cancel()
		if err == nil {
			return
		}
		si.log.Warn("sign-in mail not sent", slog.Int("attempt", i+1), slog.Any("err", err))
	}
}

var mailHTML = template.Must(template.New("mail").Parse(`<!doctype html>
<html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
<p>{{.Lead}}</p>
{{if .Title}}<p style="font-size:1.1em"><strong>{{.Title}}</strong></p>{{end}}
<p><a href="{{.Link}}" style="display:inline-block;padding:.6em 1.2em;background:#1f5eff;color:#fff;border-radius:6px;text-decoration:none">{{.Button}}</a></p>
<p style="color:#555">{{.Note}}</p>
<p style="color:#555;font-size:.9em">If the button does not work, copy this address into your browser:<br>{{.Link}}</p>
</body></html>
`))

type mailView struct{ Lead, Title, Button, Link, Note string }

func compose(to, subject string, v mailView) *callback.Mail {
	var text strings.Builder
	text.WriteString(v.Lead + "\n\n")
	if v.Title != "" {
		text.WriteString("  " + v.Title + "\n\n")
	}
	text.WriteString(v.Button + ":\n" + v.Link + "\n\n" + v.Note + "\n")
	var html bytes.Buffer
	_ = mailHTML.Execute(&html, v)
	return &callback.Mail{To: to, Subject: subject, Text: text.String(), HTML: html.String()}
}

// signInMail is the mail with a sign-in link; title is the page's (may be empty).
func signInMail(base, to, title, token string, life time.Duration) *callback.Mail {
	link := base + "/v1/auth/magic-link/verify?token=" + url.QueryEscape(token)
	subject, lead := "Your Folio sign-in link", "Someone (we hope you) asked to sign in to Folio with this address."
	if title != "" {
		subject = "Sign in to review: " + clipTitle(title)
		lead = "You were asked to review a page on Folio. Sign in with this address to open it:"
	}
	return compose(to, subject, mailView{Lead: lead, Title: title, Button: "Sign in", Link: link,
		Note: fmt.Sprintf("The link works once, within %s. If you did not ask for it, ignore this mail: nothing happens without it.", humanDuration(life))})
}

// claimMail invites the owner an agent named to claim its account.
func claimMail(base, to, name, code, token string, life time.Duration) *callback.Mail {
	link := base + "/v1/auth/magic-link/verify?token=" + url.QueryEscape(token)
	return compose(to, "Claim your agent on Folio: "+clipTitle(name), mailView{
		Lead:   "An agent registered on Folio and named you as its owner. Claim its account to see its pages, keys and usage:",
		Title:  name,
		Button: "Sign in and claim",
		Link:   link,
		Note: fmt.Sprintf("The link works once, within %s. You can also sign in at %s/claim and enter the claim code %s. If you do not know this agent, ignore this mail.",
			humanDuration(life), base, code),
	})
}

func clipTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

func humanDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d minutes", int(d.Minutes()))
}
