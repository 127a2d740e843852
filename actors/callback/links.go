package callback

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"folio/actors/maillink"
	"folio/actors/page"
	"folio/persistence"
)

// Decision links (actors/maillink): a notification or reminder mail to an address
// carries one link per action of the page. The delivery row, which the delivery
// log shows, holds placeholders instead of the links (linkPlan); each attempt to
// send mints fresh tokens for them (their hashes stored, bound to the recipient,
// the page version the mail shows and the action) and sends the mail with the
// links in place. So no token is ever stored, and a retried mail carries links
// that work.

// linkPlan is what a mail's links are bound to.
type linkPlan struct {
	Nonce       string    `json:"nonce"` // in every placeholder: text an agent wrote cannot name one
	PageVersion int       `json:"page_version"`
	ExpiresAt   time.Time `json:"expires_at"`
	Actions     []string  `json:"actions"` // action ids, in placeholder order
}

// placeholder is the stand-in for the i-th link's token (letters, digits and
// hyphens: the same in the text, in an HTML attribute and in quoted-printable).
func (lp *linkPlan) placeholder(i int) string {
	return fmt.Sprintf("LINK-%s-%d", lp.Nonce, i)
}

// planLinks is the link plan of a mail about p at ev, nil when it carries no
// links: a page that is not active, has no actions, or asks for form data (a
// link carries none).
func planLinks(p *page.Page, ev page.Event) *linkPlan {
	if p.Status != page.Active || len(p.Actions) == 0 || page.HasForm(p) {
		return nil
	}
	exp := ev.At.Add(7 * 24 * time.Hour)
	if p.ExpiresAt != nil {
		exp = *p.ExpiresAt
	}
	if d := p.DueAt(); d != nil && d.Before(exp) {
		exp = *d
	}
	if !ev.At.Before(exp) {
		return nil
	}
	lp := &linkPlan{Nonce: rand.Text()[:16], PageVersion: p.Version, ExpiresAt: exp.UTC()}
	for _, a := range p.Actions {
		lp.Actions = append(lp.Actions, a.ActionID)
	}
	return lp
}

// mintLinks is the mail of rec as it is sent at `at`: each placeholder replaced by
// the address of a new link, stored in the same transaction. A link past its
// expiry is not minted: its placeholder becomes the page's address.
func mintLinks(store *persistence.Store, rec *Delivery, linkURL func(string) string, pageURL string, at time.Time) (*Mail, error) {
	lp := rec.Links
	m := *rec.Mail
	var pairs []string
	err := store.Update(func(tx *persistence.Tx) error {
		pairs = pairs[:0]
		for i, action := range lp.Actions {
			url := pageURL
			if at.Before(lp.ExpiresAt) {
				token, err := maillink.Mint(tx, maillink.Link{PageID: rec.PageID, TenantID: rec.TenantID, Email: strings.ToLower(strings.TrimSpace(rec.Target)),
					ActionID: action, PageVersion: lp.PageVersion, DeliveryID: rec.ID, CreatedAt: at.UTC(), ExpiresAt: lp.ExpiresAt})
				if err != nil {
					return err
				}
				url = linkURL(token)
			}
			pairs = append(pairs, lp.placeholder(i), url)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer(pairs...)
	m.Text, m.HTML = r.Replace(m.Text), r.Replace(m.HTML)
	return &m, nil
}
