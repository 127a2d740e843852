package signin

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"strings"
	"time"
	"unicode"

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
	claimURL string // claim: its claimUrl, with the claim token
}

// enqueue hands j to the mail loop without waiting; when the queue is full the
// mail is dropped and logged (the person can ask again), never the request slowed.
func (ru *Rules) enqueue(j mailJob) {
	select {
	case ru.mails <- j:
	default:
		ru.d.Log.Warn("sign-in mail dropped: the queue is full", slog.String("kind", j.kind))
	}
}

// Run sends queued mails with two workers until stop closes. Sign-in mails carry a
// credential, so they are never written to the delivery log a page's owner reads;
// one that cannot be sent after three attempts is logged and dropped.
func (ru *Rules) Run(stop <-chan struct{}) {
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
				case j := <-ru.mails:
					switch j.kind {
					case people.PurposeClaim:
						ru.deliverClaim(ctx, j)
					default:
						ru.deliverLink(ctx, j)
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
func (ru *Rules) send(ctx context.Context, m *callback.Mail) {
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
		err := ru.d.Mailer.Send(actx, m, id, ru.d.Now())
		cancel()
		if err == nil {
			return
		}
		ru.d.Log.Warn("sign-in mail not sent", slog.Int("attempt", i+1), slog.Any("err", err))
	}
}

// A mail's subject is fixed text, and what an agent or a page's author wrote (an
// agent's name, a page's title) appears only in the body, as a quotation marked as
// theirs (quoteData): the mails go to addresses anonymous callers name, so they
// must not carry a stranger's message in the words or the links of Folio.
var mailHTML = template.Must(template.New("mail").Parse(`<!doctype html>
<html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
<p>{{.Lead}}</p>
{{if .Quote}}<p style="color:#555;margin-bottom:.2em">{{.QuoteLabel}}</p>
<blockquote style="margin:0 0 1em;padding:.3em .8em;border-left:3px solid #bbb;color:#333">{{.Quote}}</blockquote>{{end}}
<p><a href="{{.Link}}" style="display:inline-block;padding:.6em 1.2em;background:#1f5eff;color:#fff;border-radius:6px;text-decoration:none">{{.Button}}</a></p>
<p style="color:#555">{{.Note}}</p>
<p style="color:#555;font-size:.9em">If the button does not work, copy this address into your browser:<br>{{.Link}}</p>
</body></html>
`))

// mailView is one mail's parts. Quote is someone else's words (quoteData), shown
// under QuoteLabel, which says whose they are.
type mailView struct{ Lead, QuoteLabel, Quote, Button, Link, Note string }

func compose(to, subject string, v mailView) *callback.Mail {
	var text strings.Builder
	text.WriteString(v.Lead + "\n\n")
	if v.Quote != "" {
		text.WriteString(v.QuoteLabel + "\n  > " + v.Quote + "\n\n")
	}
	text.WriteString(v.Button + ":\n" + v.Link + "\n\n" + v.Note + "\n")
	var html bytes.Buffer
	_ = mailHTML.Execute(&html, v)
	return &callback.Mail{To: to, Subject: subject, Text: text.String(), HTML: html.String()}
}

// Fixed subjects: nothing a caller chose is ever in one.
const (
	subjectSignIn = "Your Folio sign-in link"
	subjectReview = "Sign in to review a page on Folio"
	subjectClaim  = "Claim your agent's account on Folio"
)

// signInLink is the address a sign-in mail carries: the landing page with the token
// after #. A browser never sends the fragment, so a GET of the link (a person, a
// mail scanner, a preview) leaves the token in no request line or access log and
// spends nothing; the page's script posts it (POST /v1/auth/magic-link/verify).
func signInLink(base, token string) string {
	return base + "/login/link#" + token
}

// signInMail is the mail with a sign-in link; title is the page's (may be empty).
func signInMail(base, to, title, token string, life time.Duration) *callback.Mail {
	v := mailView{Lead: "Someone (we hope you) asked to sign in to Folio with this address.", Button: "Sign in", Link: signInLink(base, token),
		Note: fmt.Sprintf("The link works once, within %s. If you did not ask for it, ignore this mail: nothing happens without it.", humanDuration(life))}
	subject := subjectSignIn
	if title != "" {
		subject = subjectReview
		v.Lead = "You were asked to review a page on Folio. Sign in with this address to open it."
		v.QuoteLabel, v.Quote = "The page's title, as its author wrote it (not checked by Folio):", quoteData(title)
	}
	return compose(to, subject, v)
}

// claimMail invites the owner an agent named to claim its account.
func claimMail(base, to, name, code, claimURL, token string, life time.Duration) *callback.Mail {
	return compose(to, subjectClaim, mailView{
		Lead:       "An agent registered on Folio and gave this address as its owner's. Claim its account to see its pages, keys and usage.",
		QuoteLabel: "The agent's name, as it gave it (not checked by Folio):",
		Quote:      quoteData(name),
		Button:     "Sign in and claim",
		Link:       signInLink(base, token),
		Note: fmt.Sprintf("The link works once, within %s. You can also open %s , sign in, and confirm the claim code %s. If you do not know this agent, ignore this mail: nothing happens without you.",
			humanDuration(life), claimURL, code),
	})
}

// quoteData is text someone else chose, made fit to quote in a mail as data: on
// one line, without control or direction-changing characters, at most 80
// characters, and with the characters that make a mail client draw a link (. : /
// @) replaced by look-alikes, so a name like "evil.example/login" is never a link.
// The HTML part escapes it as any text (html/template).
func quoteData(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r), r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F:
			return ' '
		case r == '.':
			return '\u2024' // one dot leader
		case r == ':':
			return '\u2236' // ratio
		case r == '/':
			return '\u2215' // division slash
		case r == '@':
			return '\uFF20' // fullwidth commercial at
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return "\u201c" + string(r[:79]) + "…\u201d"
	}
	return "\u201c" + s + "\u201d"
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
