package people

import (
	"folio/actors/model/ids"
	"folio/persistence"
)

// StartFlow keeps an OAuth sign-in's verifier and destination until its callback
// and returns the state that names it (sent to the provider and kept in a cookie).
func (d *Directory) StartFlow(f Flow) (state string, err error) {
	state = ids.Random(43)
	f.V = schemaV1
	f.ExpiresAt = d.now().UTC().Add(d.life.Flow)
	h := hashOf(state)
	if err := d.store.Update(func(tx *persistence.Tx) error { return putJSON(tx, bucketOAuthFlow, h, f) }); err != nil {
		return "", err
	}
	return state, nil
}

// TakeFlow ends the flow of state: the first callback with it gets it (single use,
// like a link); unknown or used is ErrUnknown, expired ErrExpired.
func (d *Directory) TakeFlow(state string) (Flow, error) {
	if state == "" || len(state) > 128 {
		return Flow{}, ErrUnknown
	}
	h := hashOf(state)
	var f Flow
	var ok bool
	err := d.store.Update(func(tx *persistence.Tx) error {
		if f, ok = getJSON[Flow](tx, bucketOAuthFlow, h); !ok {
			return nil
		}
		return tx.Delete(bucketOAuthFlow, h)
	})
	switch {
	case err != nil:
		return Flow{}, err
	case !ok:
		return Flow{}, ErrUnknown
	case !d.now().Before(f.ExpiresAt):
		return Flow{}, ErrExpired
	}
	return f, nil
}
