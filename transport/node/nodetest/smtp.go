package nodetest

import (
	"bufio"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// SMTP is a minimal SMTP listener on 127.0.0.1 that keeps every message (closed by t.Cleanup).
// It speaks just enough SMTP for net/smtp (EHLO, MAIL, RCPT, DATA, RSET, NOOP,
// QUIT), offers no STARTTLS and no AUTH, and accepts every message.
type SMTP struct {
	ln   net.Listener
	done chan struct{} // closed by cleanup: ends a DATA delay at once
	wg   sync.WaitGroup

	mu    sync.Mutex
	msgs  []Mail                // in arrival order; only ever appended to
	more  chan struct{}         // closed (and replaced) whenever msgs grows
	conns map[net.Conn]struct{} // open sessions, closed by cleanup
	delay time.Duration
}

// Mail is one message the SMTP listener accepted.
type Mail struct {
	From string   // the envelope sender (MAIL FROM)
	To   []string // the envelope recipients (RCPT TO)
	Raw  string   // the whole message as received (dot-stuffing undone, CRLF line ends)

	Subject string // decoded (RFC 2047)
	// Text is the decoded text/plain part (quoted-printable decoded), or the body
	// of a single-part text message; HTML is the decoded text/html part, "" if
	// none. Both have "\n" line ends.
	Text string
	HTML string
}

// StartSMTP starts a listener; t.Cleanup closes it and every open session, and
// waits for its goroutines to end.
func StartSMTP(t testing.TB) *SMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTP{ln: ln, done: make(chan struct{}), more: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() {
		close(s.done)
		ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			select {
			case <-s.done: // cleanup has already closed the sessions it knew of
				s.mu.Unlock()
				c.Close()
				return
			default:
			}
			s.conns[c] = struct{}{}
			s.wg.Add(1)
			s.mu.Unlock()
			go s.serve(c)
		}
	}()
	return s
}

// Addr is the listener's host:port, for node.Config.SMTPAddr.
func (s *SMTP) Addr() string { return s.ln.Addr().String() }

// SetDelay makes the server wait d before answering each DATA (a slow mail
// server; tests use it to show that nothing waits for mail). A message counts as
// received once the wait is over.
func (s *SMTP) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Messages is every message so far, in arrival order.
func (s *SMTP) Messages() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.msgs...)
}

// Wait returns the first message (in arrival order) for which match returns true,
// waiting up to timeout; it fails the test (t.Fatalf) when none arrives. A nil
// match matches every message.
func (s *SMTP) Wait(t testing.TB, timeout time.Duration, match func(Mail) bool) Mail {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	seen := 0 // messages before seen did not match
	for {
		s.mu.Lock()
		msgs, more := s.msgs[seen:], s.more
		s.mu.Unlock()
		for _, m := range msgs {
			if match == nil || match(m) {
				return m
			}
		}
		seen += len(msgs)
		select {
		case <-more:
		case <-timer.C:
			t.Fatalf("no matching e-mail within %v (%d received: %s)", timeout, seen, subjects(s.Messages()))
			return Mail{}
		}
	}
}

func subjects(msgs []Mail) string {
	q := make([]string, len(msgs))
	for i, m := range msgs {
		q[i] = "to " + strings.Join(m.To, ",") + " " + `"` + m.Subject + `"`
	}
	return strings.Join(q, "; ")
}

// add records m and wakes every Wait.
func (s *SMTP) add(m Mail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, m)
	close(s.more)
	s.more = make(chan struct{})
}

// sessionTimeout bounds each command of a session (a stuck client cannot hold a
// goroutine past it).
const sessionTimeout = 10 * time.Second

func (s *SMTP) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	_ = c.SetDeadline(time.Now().Add(sessionTimeout))
	say("220 test.local ESMTP")
	var m Mail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-test.local")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = Mail{From: between(line, "<", ">")}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = append(m.To, between(line, "<", ">"))
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, ".")) // the client doubled a leading dot
			}
			s.mu.Lock()
			delay := s.delay
			s.mu.Unlock()
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-s.done:
					return
				}
			}
			m.Raw = b.String()
			decode(&m)
			say("250 queued") // first: a kept message is one its sender saw accepted
			s.add(m)
			m = Mail{}
		case cmd == "QUIT":
			say("221 bye")
			return
		case cmd == "RSET":
			m = Mail{}
			say("250 OK")
		case cmd == "NOOP":
			say("250 OK")
		default:
			say("502 not implemented")
		}
		_ = c.SetDeadline(time.Now().Add(sessionTimeout))
	}
}

func between(s, open, close string) string {
	_, rest, _ := strings.Cut(s, open)
	v, _, _ := strings.Cut(rest, close)
	return v
}

// decode fills m's Subject, Text and HTML from m.Raw. A message that does not
// parse keeps them empty (Raw still shows what came).
func decode(m *Mail) {
	msg, err := mail.ReadMessage(strings.NewReader(m.Raw))
	if err != nil {
		return
	}
	if subj, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err == nil {
		m.Subject = subj
	} else {
		m.Subject = msg.Header.Get("Subject")
	}
	part(m, textproto.MIMEHeader(msg.Header), msg.Body)
}

// part takes the first text/plain and the first text/html body found in a part,
// descending into multipart parts.
func part(m *Mail, h textproto.MIMEHeader, body io.Reader) {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain" // the MIME default
	}
	media, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return
	}
	if strings.HasPrefix(media, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart() // raw: the transfer encoding is undone below, for every part alike
			if err != nil {
				return
			}
			part(m, p.Header, p)
		}
	}
	var dst *string
	switch media {
	case "text/plain":
		dst = &m.Text
	case "text/html":
		dst = &m.HTML
	default:
		return
	}
	if *dst != "" {
		return
	}
	var r io.Reader = body
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r) // skips the \r\n line ends
	}
	b, _ := io.ReadAll(r)
	*dst = strings.ReplaceAll(string(b), "\r\n", "\n")
}
