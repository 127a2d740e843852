package page

import (
	"folio/actors/model/audit"
	"folio/actors/model/fault"
)

// Transitions (docs/behaviour.md): update/publish/blocks on draft and active; revoke on
// draft and active; renew on expired (reactivates) and active (extends); completed and
// revoked are final. Anything else is 409 CONFLICT with details.status.

func (a *Actor) update(m *Update) any {
	if s := a.page.Status; s != Draft && s != Active {
		return fault.State("update", s)
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	warnings, err := apply(next, m.Req, false, a.deps.Limits, now)
	if err != nil {
		return err
	}
	next.UpdatedAt = now
	changed := changedFields(m.Req)
	entry := audit.New("page.updated", m.Agent, a.id, now, map[string]any{"fields": changed})
	ev := a.event(now, PageUpdated{Fields: changed, Version: next.Version})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Warnings: warnings}
}

func changedFields(r *Request) []string {
	var out []string
	add := func(present bool, name string) {
		if present {
			out = append(out, name)
		}
	}
	add(r.PageType != nil, "page_type")
	add(r.Title != nil, "title")
	add(r.Summary != nil, "summary")
	add(r.Priority != nil, "priority")
	add(r.Tags != nil, "tags")
	add(r.Blocks != nil, "blocks")
	add(r.Actions != nil, "actions")
	add(r.Access != nil, "access")
	add(r.Notify != nil, "notify")
	add(r.OnAction != nil, "on_action")
	add(r.ApprovalChain != nil, "approval_chain")
	add(r.RequireVerified != nil, "require_verified")
	add(r.ExpiresAt != nil, "expires_at")
	if out == nil {
		out = []string{}
	}
	return out
}

func (a *Actor) publishDraft(m *PublishDraft) any {
	if a.page.Status != Draft {
		return fault.State("publish", a.page.Status)
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	var warnings []string
	if m.Req != nil {
		var err error
		if warnings, err = apply(next, m.Req, false, a.deps.Limits, now); err != nil {
			return err
		}
	}
	if next.ExpiresAt == nil || !next.ExpiresAt.After(now) {
		exp := now.Add(a.deps.DefaultTTL)
		next.ExpiresAt = &exp
	}
	next.Status, next.PublishedAt, next.UpdatedAt = Active, &now, now
	entry := audit.New("page.published", m.Agent, a.id, now, map[string]any{"expires_at": next.ExpiresAt})
	ev := a.event(now, pagePublished{Status: Active})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Warnings: warnings, Previous: Draft}
}

func (a *Actor) revoke(m *Revoke) any {
	prev := a.page.Status
	if prev != Draft && prev != Active {
		return fault.State("revoke", prev)
	}
	if len(m.Reason) > 1000 {
		return fault.Limit("reason", "max_length", 1000, "reason has at most 1000 characters")
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Status, next.RevokedAt, next.RevokeReason, next.UpdatedAt = Revoked, &now, m.Reason, now
	entry := audit.New("page.revoked", m.Agent, a.id, now, map[string]any{"reason": m.Reason, "previous": prev})
	ev := a.event(now, pageRevoked{Reason: m.Reason})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Previous: prev}
}

func (a *Actor) renew(m *Renew) any {
	prev := a.page.Status
	if prev != Expired && prev != Active {
		return fault.State("renew", prev)
	}
	now := a.deps.Now().UTC()
	// Without expires_at a renewal adds the default lifetime to whichever is later,
	// now or the current expiry, so renewing never shortens a page's life.
	from := now
	if a.page.ExpiresAt != nil && a.page.ExpiresAt.After(now) {
		from = *a.page.ExpiresAt
	}
	exp := from.Add(a.deps.DefaultTTL)
	if m.ExpiresAt != nil {
		var err error
		if exp, err = futureTime("expires_at", *m.ExpiresAt, now); err != nil {
			return err
		}
	}
	next := a.page.clone()
	next.Status, next.ExpiresAt, next.UpdatedAt = Active, &exp, now
	entry := audit.New("page.renewed", m.Agent, a.id, now, map[string]any{"expires_at": exp, "previous": prev})
	ev := a.event(now, pageRenewed{ExpiresAt: exp})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Previous: prev}
}

// expireIfDue makes an active page whose expiry time has passed expired before any
// other message is handled, so nobody ever sees (or acts on) an overdue page as active.
func (a *Actor) expireIfDue() error {
	p := a.page
	if p == nil || p.Status != Active || p.ExpiresAt == nil {
		return nil
	}
	now := a.deps.Now().UTC()
	if now.Before(*p.ExpiresAt) {
		return nil
	}
	next := p.clone()
	next.Status, next.UpdatedAt = Expired, now
	entry := audit.New("page.expired", "system", a.id, now, map[string]any{"reason": "timeout", "expired_at": p.ExpiresAt})
	ev := a.event(now, PageExpired{Reason: "timeout", ExpiredAt: *p.ExpiresAt})
	return a.apply(next, []audit.Entry{entry}, []Event{ev})
}
