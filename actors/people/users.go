package people

import (
	"errors"
	"fmt"

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

// Refusals of an OAuth sign-in (docs/behaviour.md, "accounts").
var (
	// ErrAddressTaken: a known subject's provider now vouches for an address that
	// is another account's. The subject keeps its account, which is not signed in.
	ErrAddressTaken = errors.New("people: the provider's verified address belongs to another account")
	// ErrOtherSubject: the address's account is already linked to another subject
	// of the same provider (one subject per provider per account).
	ErrOtherSubject = errors.New("people: the address's account is linked to another account at the provider")
)

// SignIn returns the account the proof belongs to, creating it on first sign-in.
//
// The account's address is always the one the proof vouches for now:
//   - a provider's subject finds the account it signed in before; when the provider
//     now vouches for another address, the account moves to it (the old address is
//     released and every session of the account ends, so nothing opened under the
//     old address keeps its grants) unless the new address is another account's
//     (ErrAddressTaken);
//   - otherwise the verified address finds its account, and the subject is
//     remembered, unless that account is linked to another subject of the same
//     provider (ErrOtherSubject);
//   - otherwise a new account is made.
//
// So one subject of a provider maps to one account and one verified address to one
// account. The lookup and the change are one transaction, so two first sign-ins at
// once make one account.
func (d *Directory) SignIn(p Proof) (u User, created bool, err error) {
	email := NormalEmail(p.Email)
	subjectKey := persistence.Key([]byte(p.Provider), []byte(p.Subject))
	var out struct {
		User    User
		Created bool
	}
	var ended map[string]Session // token hash -> session ended by a move
	err = d.store.Update(func(tx *persistence.Tx) error {
		out.User, out.Created, ended = User{}, false, nil // the function may run again (persistence.Store.Update)
		byEmail := tx.Get(bucketEmails, []byte(email))
		if p.Provider != "" {
			if id := tx.Get(bucketSubjects, subjectKey); id != nil {
				if u, ok := getJSON[User](tx, bucketUsers, id); ok {
					if u.Email == email {
						out.User = u
						return nil
					}
					if byEmail != nil && string(byEmail) != u.ID {
						return ErrAddressTaken
					}
					var err error
					if ended, err = moveAddress(tx, &u, email); err != nil {
						return err
					}
					out.User = u
					return nil
				}
			}
		}
		if byEmail != nil {
			if u, ok := getJSON[User](tx, bucketUsers, byEmail); ok {
				out.User = u
				if p.Provider == "" || u.Providers[p.Provider] == p.Subject {
					return nil
				}
				if u.Providers[p.Provider] != "" {
					return ErrOtherSubject
				}
				if u.Providers == nil {
					u.Providers = map[string]string{}
				}
				u.Providers[p.Provider] = p.Subject
				out.User = u
				if err := tx.Put(bucketSubjects, subjectKey, []byte(u.ID)); err != nil {
					return err
				}
				return putJSON(tx, bucketUsers, []byte(u.ID), u)
			}
		}
		out.Created = true
		u := User{V: schemaV1, ID: ids.New("usr"), Email: email, Name: p.Name, CreatedAt: d.now().UTC()}
		if p.Provider != "" {
			u.Providers = map[string]string{p.Provider: p.Subject}
			if err := tx.Put(bucketSubjects, subjectKey, []byte(u.ID)); err != nil {
				return err
			}
		}
		out.User = u
		if err := tx.Put(bucketEmails, []byte(email), []byte(u.ID)); err != nil {
			return err
		}
		return putJSON(tx, bucketUsers, []byte(u.ID), u)
	})
	if err != nil {
		return User{}, false, err
	}
	for h, s := range ended {
		d.forgetEnded([]byte(h), s)
	}
	return out.User, out.Created, nil
}

// moveAddress gives u the address email in tx: the old address no longer finds u
// and every session of u is deleted (returned by token hash, for the caller to
// forget once tx commits). Sessions are found by a scan of all of them: a move is
// rare, and an index by account would cost every sign-in a write.
func moveAddress(tx *persistence.Tx, u *User, email string) (map[string]Session, error) {
	if old := tx.Get(bucketEmails, []byte(u.Email)); string(old) == u.ID {
		if err := tx.Delete(bucketEmails, []byte(u.Email)); err != nil {
			return nil, err
		}
	}
	u.Email = email
	if err := tx.Put(bucketEmails, []byte(email), []byte(u.ID)); err != nil {
		return nil, err
	}
	if err := putJSON(tx, bucketUsers, []byte(u.ID), *u); err != nil {
		return nil, err
	}
	ended := map[string]Session{}
	// A scan inside a write: on PostgreSQL it locks no row and sees the sessions
	// committed when it starts. A session another node starts for u while this
	// runs is not ended; it was started by a sign-in of u's, which a move that
	// committed first would not have undone either (serializable isolation allowed
	// the same order), and the sessions the scan finds are deleted by key.
	tx.Scan(bucketSessions, nil, false, func(k, v []byte) bool {
		if s, ok := decode[Session](v); ok && s.UserID == u.ID {
			ended[string(k)] = s
		}
		return true
	})
	for h := range ended {
		if err := tx.Delete(bucketSessions, []byte(h)); err != nil {
			return nil, err
		}
	}
	return ended, nil
}

// User reads an account: ok false when there is none, err when the store did not
// answer (never "no such account").
func (d *Directory) User(id string) (u User, ok bool, err error) {
	if err := d.store.View(func(tx *persistence.Tx) error {
		u, ok = getJSON[User](tx, bucketUsers, []byte(id))
		return nil
	}); err != nil {
		return User{}, false, fmt.Errorf("people: user %s: %w", id, err)
	}
	return u, ok, nil
}

// UserByEmail finds the account of a verified address: ok false when there is
// none, err when the store did not answer (never "no such account").
func (d *Directory) UserByEmail(email string) (u User, ok bool, err error) {
	if err := d.store.View(func(tx *persistence.Tx) error {
		if id := tx.Get(bucketEmails, []byte(NormalEmail(email))); id != nil {
			u, ok = getJSON[User](tx, bucketUsers, id)
		}
		return nil
	}); err != nil {
		return User{}, false, fmt.Errorf("people: user by email: %w", err)
	}
	return u, ok, nil
}

// EmailOf is the verified address an account has now (it follows the identity
// provider: SignIn), for screens that list members by a record made when they
// joined. false when the account is not found or the store did not answer: the
// screen then shows the address recorded when they joined.
func (d *Directory) EmailOf(userID string) (string, bool) {
	u, ok, err := d.User(userID)
	return u.Email, ok && err == nil
}
