package nodetest

import (
	"context"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"folio/actors/callback"
)

// TestSMTPMailerSendsTextAndHTMLThatDecodeToTheOriginals sends a two-part mail
// through the real mailer and reads it back as a mail client would.
func TestSMTPMailerSendsTextAndHTMLThatDecodeToTheOriginals(t *testing.T) {
	s := StartSMTP(t)
	long := strings.Repeat("Ünïcødé, = signs and a line longer than 76 characters. ", 3)
	m := &callback.Mail{
		To:      "alice@example.com",
		Subject: "Déploiement v2 — approuver ?",
		Text:    "Bonjour,\n" + long + "\n.\n..leading dots\nfin",
		HTML:    "<p>Bonjour,</p>\n<p>" + long + "</p>\n<p>日本語 <a href=\"https://folio.test/p/pg_1?a=1&amp;b=2\">ouvrir</a></p>",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	mailer := &callback.SMTPMailer{Addr: s.Addr(), From: "Folio <noreply@folio.test>"}
	if err := mailer.Send(ctx, m, "dlv_1", time.Now()); err != nil {
		t.Fatal(err)
	}
	got := s.Wait(t, 5*time.Second, nil)
	if got.From != "noreply@folio.test" || len(got.To) != 1 || got.To[0] != "alice@example.com" {
		t.Errorf("envelope: from %q to %v", got.From, got.To)
	}
	if got.Subject != m.Subject {
		t.Errorf("Subject = %q, want %q", got.Subject, m.Subject)
	}
	if got.Text != m.Text {
		t.Errorf("Text =\n%q\nwant\n%q", got.Text, m.Text)
	}
	if got.HTML != m.HTML {
		t.Errorf("HTML =\n%q\nwant\n%q", got.HTML, m.HTML)
	}
	if !strings.Contains(got.Raw, "Content-Type: multipart/alternative;") || !strings.Contains(got.Raw, "\r\n") {
		t.Errorf("Raw =\n%s", got.Raw)
	}
}

// TestSMTPSingleTextMessageAndWaitInArrivalOrder: a plain-text message has its
// body as Text and no HTML, and Wait returns the first match, also for a message
// that arrives while it waits.
func TestSMTPSingleTextMessageAndWaitInArrivalOrder(t *testing.T) {
	s := StartSMTP(t)
	send := func(to, subject, body string) {
		msg := "To: " + to + "\r\nSubject: " + subject + "\r\n\r\n" + body
		if err := smtp.SendMail(s.Addr(), nil, "a@folio.test", []string{to}, []byte(msg)); err != nil {
			t.Error(err)
		}
	}
	send("one@example.com", "=?utf-8?q?caf=C3=A9?=", "first\r\n.dot\r\n")
	send("two@example.com", "second", "second\r\n")
	if m := s.Wait(t, time.Second, nil); m.Subject != "café" || m.Text != "first\n.dot\n" || m.HTML != "" {
		t.Errorf("first message: %+v", m)
	}
	if m := s.Wait(t, time.Second, func(m Mail) bool { return m.To[0] == "two@example.com" }); m.Subject != "second" {
		t.Errorf("second message: %+v", m)
	}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		time.Sleep(50 * time.Millisecond)
		send("three@example.com", "third", "third\r\n")
	}()
	if m := s.Wait(t, 5*time.Second, func(m Mail) bool { return m.Subject == "third" }); m.Text != "third\n" {
		t.Errorf("third message: %+v", m)
	}
	<-sent // the sender still says QUIT
	if n := len(s.Messages()); n != 3 {
		t.Errorf("%d messages, want 3", n)
	}
}

// TestSMTPDelayHoldsTheAnswerToDATA: with SetDelay the sender waits, and the
// message is kept once the answer is given.
func TestSMTPDelayHoldsTheAnswerToDATA(t *testing.T) {
	s := StartSMTP(t)
	s.SetDelay(200 * time.Millisecond)
	start := time.Now()
	if err := smtp.SendMail(s.Addr(), nil, "a@folio.test", []string{"b@example.com"}, []byte("Subject: slow\r\n\r\nbody\r\n")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("the send took %v, want at least the 200ms delay", d)
	}
	if m := s.Wait(t, time.Second, nil); m.Subject != "slow" {
		t.Errorf("message: %+v", m)
	}
}
