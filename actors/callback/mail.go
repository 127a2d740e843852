package callback

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Mailer hands an e-mail notification over for delivery.
type Mailer interface {
	Send(ctx context.Context, m *Mail, id string, at time.Time) error
}

// SMTPMailer sends through an SMTP server (--smtp-addr): STARTTLS when the server
// offers it, AUTH PLAIN when a user is configured (net/smtp refuses to send
// credentials without TLS except to localhost).
type SMTPMailer struct {
	Addr, From, User, Password string
}

// Send delivers m, bounded by ctx.
func (s *SMTPMailer) Send(ctx context.Context, m *Mail, id string, at time.Time) error {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := c.Hello("folio"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host}); err != nil {
			return err
		}
	}
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(address(s.From)); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(message(s.From, m, id, at)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// FileMailer is the mailer without SMTP: each message is logged and written to
// Dir/<delivery id>.eml (an outbox a person or a tool can pick up).
type FileMailer struct {
	Dir  string
	From string
	Log  *slog.Logger
}

// Send writes m to the outbox directory.
func (f *FileMailer) Send(_ context.Context, m *Mail, id string, at time.Time) error {
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return err
	}
	path := filepath.Join(f.Dir, id+".eml")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, encodeMessage(f.From, m, id, at, false), 0o640); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if f.Log != nil {
		f.Log.Info("e-mail notification written to the outbox (no SMTP configured)", slog.String("to", m.To),
			slog.String("subject", m.Subject), slog.String("file", path))
	}
	return nil
}

// address is the bare address of a From value such as "Folio <noreply@example.com>".
func address(from string) string {
	if i, j := strings.LastIndexByte(from, '<'), strings.LastIndexByte(from, '>'); i >= 0 && j > i {
		return from[i+1 : j]
	}
	return from
}

// message is the RFC 5322 message, CRLF line ends: UTF-8 text, quoted-printable.
// With m.HTML set it is a multipart/alternative of that text and the HTML (each
// UTF-8, quoted-printable), the text first: a mail client shows the last
// alternative it can display, so the richest goes last.
func message(from string, m *Mail, id string, at time.Time) []byte {
	return encodeMessage(from, m, id, at, true)
}

// encodeMessage is message with its parts quoted-printable (qp, what goes over
// SMTP) or 8bit: the outbox folder's files are read by people and tools, and a
// quoted-printable body breaks a long link over soft line ends ("=" at 76
// characters) and spells "=" as "=3D", so a link copied from the file would not
// work. An 8bit part is the UTF-8 text as it is, CRLF line ends.
func encodeMessage(from string, m *Mail, id string, at time.Time, qp bool) []byte {
	cte, write := "quoted-printable", writeQP
	if !qp {
		cte, write = "8bit", write8bit
	}
	var b bytes.Buffer
	hdr := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	hdr("From", from)
	hdr("To", m.To)
	hdr("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	hdr("Date", at.UTC().Format(time.RFC1123Z))
	hdr("Message-ID", "<"+id+"@folio>")
	hdr("MIME-Version", "1.0")
	if m.HTML == "" {
		hdr("Content-Type", "text/plain; charset=utf-8")
		hdr("Content-Transfer-Encoding", cte)
		b.WriteString("\r\n")
		write(&b, m.Text)
		b.WriteString("\r\n")
		return b.Bytes()
	}
	mw := multipart.NewWriter(&b)
	// Quoted-printable output never holds "=_" ("=" is always followed by two hex
	// digits or a line end), so a boundary starting with it cannot occur in either
	// part, whatever the text; the random rest (130 bits) keeps it unique when
	// nested, and in an 8bit part, whose text nobody can make guess it.
	if err := mw.SetBoundary("=_folio_" + rand.Text()); err != nil {
		panic(err) // the boundary is a constant prefix and base32: always valid
	}
	hdr("Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": mw.Boundary()}))
	b.WriteString("\r\n")
	for _, p := range []struct{ media, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, _ := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.media + "; charset=utf-8"},
			"Content-Transfer-Encoding": {cte},
		})
		write(w, p.body)
	}
	_ = mw.Close() // ends with the close delimiter and its CRLF
	return b.Bytes()
}

// write8bit writes s as it is, its "\n" line ends as CRLF.
func write8bit(w io.Writer, s string) {
	_, _ = io.WriteString(w, strings.ReplaceAll(s, "\n", "\r\n"))
}

// writeQP writes s quoted-printable, its "\n" line ends as CRLF.
func writeQP(w io.Writer, s string) {
	qp := quotedprintable.NewWriter(w)
	_, _ = qp.Write([]byte(strings.ReplaceAll(s, "\n", "\r\n")))
	_ = qp.Close()
}
