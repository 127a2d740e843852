package tenant

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/asynkron/protoactor-go/actor"

	"folio/actors/model/fault"
	"folio/actors/model/formats"
	"folio/actors/model/ids"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// Deps are what a TenantActor needs.
type Deps struct {
	Store   *persistence.Store
	Keyring *Keyring
	Now     func() time.Time
	Idle    time.Duration
}

// Actor serialises all changes to one tenant. Its state lives in bbolt; it keeps
// nothing in memory that a restart could lose.
type Actor struct {
	id   string
	deps *Deps
	ent  *registry.Entity // idling, the panic answer, start/stop

	// The monthly page quota's ledger (quota.go): the only in-memory state; a
	// restarted actor re-reads it from bbolt.
	quota ledger
}

// NewProducer makes tenant actors for a registry.
func NewProducer(d *Deps) registry.Producer {
	return func(id string) actor.Actor {
		return &Actor{id: id, deps: d, ent: registry.NewEntity(id, d.Idle, registry.Lifecycle{})}
	}
}

var errCodeTaken = errors.New("claim code taken")

// Receive handles one message at a time, on the entity skeleton: a panicking
// command is answered with an INTERNAL_ERROR fault at once and the supervisor then
// restarts the actor (its ledger is re-read from the store).
func (a *Actor) Receive(ctx actor.Context) { a.ent.Receive(ctx, a.handle) }

func (a *Actor) handle(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *Register:
		ctx.Respond(a.register(msg))
	case *CreateKey:
		ctx.Respond(a.createKey(msg))
	case *ListKeys:
		ctx.Respond(a.listKeys())
	case *DeleteKey:
		ctx.Respond(a.deleteKey(msg))
	case *Get:
		ctx.Respond(a.get())
	case *Reserve:
		ctx.Respond(a.reserve(msg))
	case *Release:
		a.release(msg)
	case *SetPlan:
		ctx.Respond(a.setPlan(msg))
	case *Claim:
		ctx.Respond(a.claim(msg))
	case *ListMembers:
		ctx.Respond(a.listMembers())
	}
}

// register creates the tenant once its registration is valid (checkRegister).
func (a *Actor) register(msg *Register) any {
	name, err := checkRegister(msg)
	if err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	for attempt := 0; attempt < 8; attempt++ {
		t := Tenant{V: schemaV1, ID: a.id, Name: name, Plan: msg.Plan, OwnerEmail: msg.OwnerEmail,
			ClaimCode: claimPrefix(name) + "-" + ids.Upper(4), CreatedAt: now, Claimed: msg.Owner != nil}
		claimToken := ""
		if !t.Claimed {
			claimToken = newClaimToken()
			t.ClaimTokenHash = claimTokenHash(claimToken)
		}
		key, secret := newKey(a.id, name, false, now)
		err := a.deps.Store.Update(func(tx *persistence.Tx) error {
			if tx.Get(bucketTenants, []byte(a.id)) != nil {
				return fault.New(fault.Conflict, "tenant exists", nil)
			}
			if tx.Get(bucketClaimCodes, []byte(t.ClaimCode)) != nil {
				return errCodeTaken
			}
			// hasMembership scans, and on PostgreSQL a scan inside a write locks no
			// row: the person's sign-in row is read first, which locks it (or, absent
			// for two nodes at once, makes the second's insert of it fail and its
			// function run again), so two first sign-ins on two nodes take turns
			// and the second scan sees the first's membership.
			if o := msg.Owner; o != nil {
				_ = tx.Get(bucketSignInWorkspace, []byte(o.UserID)) // read for its lock; a failed read fails tx
			}
			if o := msg.Owner; o != nil && hasMembership(tx, o.UserID) {
				// A workspace is made for a person's first sign-in only: of several
				// at once, the first commit makes it and the others find it.
				return fault.New(fault.Conflict, "this person already belongs to a workspace", map[string]any{"reason": "has_workspace"})
			}
			if err := putJSON(tx, bucketTenants, []byte(t.ID), t); err != nil {
				return err
			}
			if err := tx.Put(bucketClaimCodes, []byte(t.ClaimCode), []byte(t.ID)); err != nil {
				return err
			}
			if t.ClaimTokenHash != nil {
				if err := tx.Put(bucketClaimTokens, t.ClaimTokenHash, []byte(t.ID)); err != nil {
					return err
				}
			}
			if o := msg.Owner; o != nil {
				if err := tx.Put(bucketSignInWorkspace, []byte(o.UserID), []byte(t.ID)); err != nil {
					return err
				}
				m := *o
				m.Role, m.JoinedAt = "owner", now
				if err := putMember(tx, t.ID, m); err != nil {
					return err
				}
			}
			return putKey(tx, key)
		})
		if errors.Is(err, errCodeTaken) {
			continue
		}
		if err != nil {
			return err
		}
		return &Registered{Tenant: t, APIKey: secret, ClaimToken: claimToken}
	}
	return errors.New("tenant: no free claim code")
}

// checkRegister is the rule for a registration: a name of 1 to 100 characters once
// surrounding spaces are trimmed (the trimmed name is the one kept), and an owner
// e-mail that is absent or one plain address (formats.Email). A refusal is 400
// naming the field and the constraint.
func checkRegister(msg *Register) (name string, err error) {
	name = strings.TrimSpace(msg.Name)
	switch {
	case name == "":
		return "", fault.Field("name", "required", "name is required")
	case utf8.RuneCountInString(name) > 100:
		return "", fault.Field("name", "max_length", "name has at most 100 characters")
	case msg.OwnerEmail != "" && !formats.Email(msg.OwnerEmail):
		return "", fault.Field("owner_email", "email", "owner_email must be a plain e-mail address")
	}
	return name, nil
}

func (a *Actor) createKey(msg *CreateKey) any {
	if t, err := a.load(); err != nil || t == nil {
		return orMissing(err, a.id)
	}
	key, secret, err := CreateKeyIn(a.deps.Store, a.id, msg.Name, msg.Test, a.deps.Now())
	if err != nil {
		return err
	}
	return &CreatedKey{Key: key, Secret: secret}
}

// setPlan answers SetPlan (already validated) with the *Tenant as stored.
func (a *Actor) setPlan(msg *SetPlan) any {
	t, err := ApplyPlan(a.deps.Store, a.id, msg, a.deps.Now().UTC())
	if err != nil {
		return err
	}
	return &t
}

func (a *Actor) listKeys() any {
	out := []KeyView{}
	err := a.deps.Store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketTenantKeys, append([]byte(a.id), 0), false, func(_, lookup []byte) bool {
			if k, ok := decodeKey(tx.Get(bucketKeys, lookup)); ok {
				var stored time.Time
				if v := tx.Get(bucketLastUsed, []byte(k.ID)); v != nil {
					stored = time.Unix(0, int64(persistence.ReadU64(v))).UTC()
				}
				out = append(out, KeyView{Key: k, LastUsedAt: a.deps.Keyring.LastUsed(k.ID, stored)})
			}
			return true
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("tenant: keys of %s: %w", a.id, err) // not "no keys"
	}
	return out
}

func (a *Actor) deleteKey(msg *DeleteKey) any {
	idx := persistence.Key([]byte(a.id), []byte(msg.KeyID))
	var lookup []byte
	err := a.deps.Store.Update(func(tx *persistence.Tx) error {
		lookup = tx.Get(bucketTenantKeys, idx)
		if lookup == nil {
			return fault.Missing("api key", msg.KeyID)
		}
		if err := tx.Delete(bucketKeys, lookup); err != nil {
			return err
		}
		return tx.Delete(bucketTenantKeys, idx)
	})
	if err != nil {
		return err
	}
	a.deps.Keyring.Forget(lookup, msg.KeyID) // before the reply: the next request is refused
	return &KeyDeleted{}
}

func (a *Actor) get() any {
	t, err := a.load()
	if err != nil || t == nil {
		return orMissing(err, a.id)
	}
	v := &View{Tenant: *t}
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		v.PagesThisMonth = int(persistence.ReadU64(tx.Get(BucketUsage, monthKey(a.id, a.deps.Now()))))
		v.Stored = page.Stored(tx, a.id)
		return nil
	}); err != nil {
		return fmt.Errorf("tenant: usage of %s: %w", a.id, err)
	}
	return v
}

// load reads the tenant: nil (and no error) when it is not stored; err when the
// store did not answer.
func (a *Actor) load() (*Tenant, error) {
	t, ok, err := Load(a.deps.Store, a.id)
	if err != nil || !ok {
		return nil, err
	}
	return &t, nil
}

// orMissing is the answer for a tenant that could not be read: the store's failure
// as it is (503 "try again"), or 404 when the read succeeded and found nothing.
func orMissing(err error, id string) error {
	if err != nil {
		return err
	}
	return fault.Missing("tenant", id)
}

func newKey(tenantID, name string, test bool, now time.Time) (Key, string) {
	kind := "sk_live_"
	if test {
		kind = "sk_test_"
	}
	secret := kind + ids.Random(44)
	return Key{V: schemaV1, ID: ids.New("key"), TenantID: tenantID, Name: name, Prefix: secret[:12],
		Lookup: string(lookupID(secret)), Hash: hashKey(secret), Test: test, CreatedAt: now}, secret
}

// putKey files the key under its lookup id and lists it under its tenant.
func putKey(tx *persistence.Tx, k Key) error {
	if err := putJSON(tx, bucketKeys, []byte(k.Lookup), k); err != nil {
		return err
	}
	return tx.Put(bucketTenantKeys, persistence.Key([]byte(k.TenantID), []byte(k.ID)), []byte(k.Lookup))
}

func putJSON(tx *persistence.Tx, bucket string, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Put(bucket, key, b)
}

// claimPrefix is up to six letters of the agent's name, upper-cased ("AGENT" if none).
func claimPrefix(name string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			if b.Len() == 6 {
				break
			}
		}
	}
	if b.Len() < 2 {
		return "AGENT"
	}
	return b.String()
}
