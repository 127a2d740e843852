package people

import (
	"folio/persistence"
)

// IssueLink stores a sign-in link for l.Email (its expiry is set here from the
// purpose's lifetime) and returns its token, which goes only into the e-mail.
func (d *Directory) IssueLink(l Link) (token string, err error) {
	token = newToken(linkPrefix)
	l.V = schemaV1
	l.Email = NormalEmail(l.Email)
	life := d.life.Link
	if l.Purpose == PurposeClaim {
		life = d.life.ClaimLink
	}
	l.ExpiresAt = d.now().UTC().Add(life)
	h := hashOf(token)
	if err := d.store.Update(func(tx *persistence.Tx) error { return putJSON(tx, bucketLinks, h, l) }); err != nil {
		return "", err
	}
	return token, nil
}

// UseLink spends a link: the first use of an unexpired link returns it, and it is
// deleted in the same transaction, so of any number of concurrent uses exactly one
// succeeds. An unknown or used token is ErrUnknown, an expired one ErrExpired.
func (d *Directory) UseLink(token string) (Link, error) {
	if len(token) > 128 || len(token) < len(linkPrefix) || token[:len(linkPrefix)] != linkPrefix {
		return Link{}, ErrUnknown
	}
	h := hashOf(token)
	var l Link
	var ok bool
	err := d.store.Update(func(tx *persistence.Tx) error {
		if l, ok = getJSON[Link](tx, bucketLinks, h); !ok {
			return nil
		}
		return tx.Delete(bucketLinks, h)
	})
	switch {
	case err != nil:
		return Link{}, err
	case !ok:
		return Link{}, ErrUnknown
	case !d.now().Before(l.ExpiresAt):
		return Link{}, ErrExpired
	}
	return l, nil
}
