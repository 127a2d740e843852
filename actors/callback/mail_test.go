package callback

import (
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"
)

var mailAt = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)

// TestMailWithoutHTMLIsTheSamePlainTextMessageAsBefore pins the single-part
// message byte for byte: adding the HTML part changed nothing for mails without it.
func TestMailWithoutHTMLIsTheSamePlainTextMessageAsBefore(t *testing.T) {
	m := &Mail{To: "alice@example.com", Subject: "Prêt ?", Text: "Line one\nsecond = line\n"}
	got := string(message("Folio <noreply@folio.test>", m, "dlv_1", mailAt))
	want := "From: Folio <noreply@folio.test>\r\n" +
		"To: alice@example.com\r\n" +
		"Subject: =?utf-8?q?Pr=C3=AAt_=3F?=\r\n" +
		"Date: Tue, 03 Feb 2026 04:05:06 +0000\r\n" +
		"Message-ID: <dlv_1@folio>\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n" +
		"\r\n" +
		"Line one\r\nsecond =3D line\r\n" +
		"\r\n"
	if got != want {
		t.Errorf("message =\n%q\nwant\n%q", got, want)
	}
	msg, err := mail.ReadMessage(strings.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if media, _, err := mime.ParseMediaType(msg.Header.Get("Content-Type")); err != nil || media != "text/plain" {
		t.Errorf("Content-Type = %q (%v), want text/plain", media, err)
	}
}

// TestMailWithHTMLHasAPlainTextAndAnHTMLPartThatDecodeToTheOriginals parses the
// message as a mail client would and checks every byte of both parts survives,
// including non-ASCII, "=", lines longer than quoted-printable's 76 characters, and
// text that looks like a boundary.
func TestMailWithHTMLHasAPlainTextAndAnHTMLPartThatDecodeToTheOriginals(t *testing.T) {
	long := strings.Repeat("Ünïcødé and a long line with = signs, ", 6)
	m := &Mail{
		To:      "bob@example.com",
		Subject: "Déploiement v2 — approuver ?",
		Text:    "Bonjour,\n" + long + "\n--=_folio_ looks like a boundary\n.\nfin",
		HTML:    "<p>Bonjour,</p>\n<p>" + long + "</p>\n<p>日本語 <a href=\"https://folio.test/p/pg_1?a=1&amp;b=2\">ouvrir</a></p>",
	}
	raw := message("Folio <noreply@folio.test>", m, "dlv_2", mailAt)
	for i, line := range strings.Split(string(raw), "\r\n") {
		if strings.Contains(line, "\n") || strings.Contains(line, "\r") {
			t.Fatalf("line %d has a bare line end: %q", i, line)
		}
		if len(line) > 998 {
			t.Errorf("line %d is %d octets long, over the 998 mail allows", i, len(line))
		}
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"From": "Folio <noreply@folio.test>", "To": "bob@example.com",
		"Message-ID": "<dlv_2@folio>", "MIME-Version": "1.0", "Date": "Tue, 03 Feb 2026 04:05:06 +0000"} {
		if got := msg.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if subj, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil || subj != m.Subject {
		t.Errorf("Subject = %q (%v), want %q", subj, err, m.Subject)
	}
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || media != "multipart/alternative" || params["boundary"] == "" {
		t.Fatalf("Content-Type = %q", msg.Header.Get("Content-Type"))
	}
	// The header, the two parts' delimiters and the close delimiter: nowhere in a body.
	if n := strings.Count(string(raw), params["boundary"]); n != 4 {
		t.Errorf("the boundary %q occurs %d times, want 4", params["boundary"], n)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	var got []struct{ media, body string }
	for {
		p, err := mr.NextPart() // decodes quoted-printable, and drops the header saying so
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		media, params, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err != nil || params["charset"] != "utf-8" {
			t.Errorf("part Content-Type = %q", p.Header.Get("Content-Type"))
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, struct{ media, body string }{media, strings.ReplaceAll(string(b), "\r\n", "\n")})
	}
	if len(got) != 2 || got[0].media != "text/plain" || got[1].media != "text/html" {
		t.Fatalf("parts = %v, want text/plain then text/html", got)
	}
	if got[0].body != m.Text {
		t.Errorf("text part =\n%q\nwant\n%q", got[0].body, m.Text)
	}
	if got[1].body != m.HTML {
		t.Errorf("html part =\n%q\nwant\n%q", got[1].body, m.HTML)
	}
}

// TestMailBoundariesDiffer: each message draws its own boundary.
func TestMailBoundariesDiffer(t *testing.T) {
	m := &Mail{To: "a@example.com", Subject: "s", Text: "t", HTML: "<p>t</p>"}
	boundary := func() string {
		msg, err := mail.ReadMessage(strings.NewReader(string(message("f@example.com", m, "d", mailAt))))
		if err != nil {
			t.Fatal(err)
		}
		_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		return params["boundary"]
	}
	if a, b := boundary(), boundary(); a == b || !strings.HasPrefix(a, "=_") {
		t.Errorf("boundaries %q and %q", a, b)
	}
}
