package signin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// FirstWorkspace gives u, signed in as session sessionID, a workspace when they
// belong to none yet, with an API key the welcome page shows once (TakeWelcome):
// welcome tells whether it did. A store that does not answer is err, never "has
// no workspace"; another sign-in of the same person that made the workspace a
// moment ago is no error and no welcome.
func (ru *Rules) FirstWorkspace(ctx context.Context, u people.User, sessionID string) (welcome bool, err error) {
	tenants, err := tenant.TenantsOf(ru.d.Store, u.ID)
	if err != nil || len(tenants) > 0 {
		return false, err
	}
	reg, err := registry.Call[*tenant.Registered](ctx, ru.d.Tenants, ids.New("ten"), &tenant.Register{
		Name: workspaceName(u), Plan: ru.d.DefaultPlan, OwnerEmail: u.Email,
		Owner: &tenant.Member{UserID: u.ID, Email: u.Email}})
	var fe *fault.Error
	switch {
	case err == nil:
		ru.welcome.put(ru.d.Now(), sessionID, welcomeKey{Key: reg.APIKey, TenantID: reg.Tenant.ID})
		return true, nil
	case errors.As(err, &fe) && fe.Code == fault.Conflict:
		return false, nil
	}
	return false, err
}

// TakeWelcome is the new API key of the workspace a session's first sign-in
// created, exactly once, within welcomeTTL.
func (ru *Rules) TakeWelcome(sessionID string) (key, tenantID string, ok bool) {
	w, ok := ru.welcome.take(ru.d.Now(), sessionID)
	return w.Key, w.TenantID, ok
}

// workspaceName is the name of the workspace made for a first sign-in: the
// person's name (or their address's local part), at most 80 characters, + "'s
// workspace".
func workspaceName(u people.User) string {
	name := strings.TrimSpace(u.Name)
	if name == "" {
		name, _, _ = strings.Cut(u.Email, "@")
	}
	if r := []rune(name); len(r) > 80 {
		name = string(r[:80])
	}
	return name + "'s workspace"
}

// welcomeKeys holds the API key of a workspace created at a first sign-in until
// the welcome page shows it (once), for at most welcomeTTL; it is never stored.
type welcomeKeys struct {
	mu sync.Mutex
	m  map[string]welcomeKey // session id ->
}

type welcomeKey struct {
	Key, TenantID string
	until         time.Time
}

const welcomeTTL = 10 * time.Minute

func (k *welcomeKeys) put(now time.Time, sessionID string, w welcomeKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, e := range k.m {
		if now.After(e.until) {
			delete(k.m, id)
		}
	}
	w.until = now.Add(welcomeTTL)
	k.m[sessionID] = w
}

func (k *welcomeKeys) take(now time.Time, sessionID string) (welcomeKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	w, ok := k.m[sessionID]
	delete(k.m, sessionID)
	return w, ok && now.Before(w.until)
}
