package people

import (
	"folio/actors/model/ids"
	"folio/persistence"
)

// Proof is what a sign-in established: a verified e-mail address and, for an OAuth
// sign-in, the provider's stable subject.
type Proof struct {
	Email    string
	Name     string
	Provider string // "" for a magic link
	Subject  string
}

// SignIn returns the account the proof belongs to, creating it on first sign-in.
// A provider's subject finds the account it signed in before (whatever its e-mail
// is now); otherwise the verified e-mail does, and the subject is remembered. The
// lookup and the creation are one transaction, so two first sign-ins at once make
// one account.
func (d *Directory) SignIn(p Proof) (u User, created bool, err error) {
	email := NormalEmail(p.Email)
	subjectKey := persistence.Key([]byte(p.Provider), []byte(p.Subject))
	err = d.store.Update(func(tx *persistence.Tx) error {
		created = false // the function may run again (persistence.Store.Update)
		var id []byte
		if p.Provider != "" {
			id = tx.Get(bucketSubjects, subjectKey)
		}
		if id == nil {
			id = tx.Get(bucketEmails, []byte(email))
		}
		if id != nil {
			var ok bool
			if u, ok = getJSON[User](tx, bucketUsers, id); ok {
				if p.Provider == "" || u.Providers[p.Provider] == p.Subject {
					return nil
				}
				if u.Providers == nil {
					u.Providers = map[string]string{}
				}
				u.Providers[p.Provider] = p.Subject
				if err := tx.Put(bucketSubjects, subjectKey, []byte(u.ID)); err != nil {
					return err
				}
				return putJSON(tx, bucketUsers, []byte(u.ID), u)
			}
		}
		created = true
		u = User{V: schemaV1, ID: ids.New("usr"), Email: email, Name: p.Name, CreatedAt: d.now().UTC()}
		if p.Provider != "" {
			u.Providers = map[string]string{p.Provider: p.Subject}
			if err := tx.Put(bucketSubjects, subjectKey, []byte(u.ID)); err != nil {
				return err
			}
		}
		if err := tx.Put(bucketEmails, []byte(email), []byte(u.ID)); err != nil {
			return err
		}
		return putJSON(tx, bucketUsers, []byte(u.ID), u)
	})
	return u, created, err
}

// User reads an account.
func (d *Directory) User(id string) (User, bool) {
	var u User
	var ok bool
	_ = d.store.View(func(tx *persistence.Tx) error {
		u, ok = getJSON[User](tx, bucketUsers, []byte(id))
		return nil
	})
	return u, ok
}

// UserByEmail finds the account of a verified address.
func (d *Directory) UserByEmail(email string) (User, bool) {
	var u User
	var ok bool
	_ = d.store.View(func(tx *persistence.Tx) error {
		if id := tx.Get(bucketEmails, []byte(NormalEmail(email))); id != nil {
			u, ok = getJSON[User](tx, bucketUsers, id)
		}
		return nil
	})
	return u, ok
}
