package signin

import (
	"context"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// RequestLink checks a request for a sign-in link from clientAddr
// (people.CheckLinkRequest) and queues it. What it checks is the shape of the
// request and the abuse limits (LinksPerEmail, LinksPerClient), the same for
// every address; whether a mail actually goes out (the page admits the address)
// is decided later, in the background (deliverLink), so neither the answer nor
// its timing says whether an address is allowed. Without a page, any address may
// sign in (the sign-in page, claiming an agent). rate is the limit to write as
// headers.
func (ru *Rules) RequestLink(clientAddr, email, pageID, redirect string) (Rate, error) {
	req, err := people.CheckLinkRequest(email, pageID, redirect, ru.d.Origins...)
	if err != nil {
		return Rate{}, err
	}
	lim := ru.d.Limits
	rate, err := take(ru.links, "sign_in_links", "email", "email:"+req.Email, lim.LinksPerEmail, lim.Window)
	if err != nil {
		return rate, err
	}
	if rate, err = take(ru.links, "sign_in_links", "address", "addr:"+clientAddr, lim.LinksPerClient, lim.Window); err != nil {
		return rate, err
	}
	ru.enqueue(mailJob{kind: people.PurposeSignIn, email: req.Email, pageID: req.PageID, redirect: req.Redirect})
	return rate, nil
}

// SafeRedirect is where a sign-in may lead: redirect when it is on this service
// (people.SafeRedirect), else def.
func (ru *Rules) SafeRedirect(redirect, def string) (string, error) {
	return people.SafeRedirect(redirect, def, ru.d.Origins...)
}

// UseLink spends a mailed link's token (its first use only) and signs in the
// person it was mailed to: who they are and where to lead them (where the link
// was asked for; a claim link also claims the agent's account, ClaimByLink). A
// used or unknown link is people.ErrUnknown, an expired one people.ErrExpired.
func (ru *Rules) UseLink(ctx context.Context, token string) (u people.User, to string, err error) {
	l, err := ru.d.People.UseLink(token)
	if err != nil {
		return people.User{}, "", err
	}
	u, _, err = ru.d.People.SignIn(people.Proof{Email: l.Email})
	if err != nil {
		return people.User{}, "", err
	}
	if l.Purpose != people.PurposeClaim {
		return u, l.Redirect, nil
	}
	to, err = ru.ClaimByLink(ctx, u, l.TenantID)
	return u, to, err
}

// deliverLink decides, away from the request, whether the address gets a link: a
// page given must admit it (an authenticated page's allowed_identities, or its
// tenant's members; any address on a public page). A store that does not answer
// sends nothing rather than decide on a failed read.
func (ru *Rules) deliverLink(ctx context.Context, j mailJob) {
	title, ok := ru.pageAdmits(ctx, j.email, j.pageID)
	if !ok {
		return
	}
	token, err := ru.d.People.IssueLink(people.Link{Email: j.email, PageID: j.pageID, Redirect: j.redirect, Purpose: people.PurposeSignIn})
	if err != nil {
		ru.d.Log.Error("sign-in link not stored", "err", err)
		return
	}
	ru.send(ctx, signInMail(ru.d.AppURL, j.email, title, token, ru.d.People.Lifetimes().Link))
}

// pageAdmits tells whether the page pageID ("": none, any address) admits the
// person of email, and the page's title for the mail.
func (ru *Rules) pageAdmits(ctx context.Context, email, pageID string) (title string, ok bool) {
	if pageID == "" {
		return "", true
	}
	v := page.Viewer{Person: email, Method: page.AuthMagicLink}
	u, found, err := ru.d.People.UserByEmail(email)
	if err != nil { // not "no account"
		ru.d.Log.Warn("no sign-in link sent: the store did not answer", "page", pageID, "err", err.Error())
		return "", false
	}
	if found {
		tenants, err := tenant.TenantsOf(ru.d.Store, u.ID)
		if err != nil { // not "belongs to none"
			ru.d.Log.Warn("no sign-in link sent: the store did not answer", "page", pageID, "err", err.Error())
			return "", false
		}
		v.Tenants = tenants
	}
	res, err := registry.Call[*page.Admitted](ctx, ru.d.Pages, pageID, &page.Admits{Viewer: v})
	if err != nil {
		ru.d.Log.Info("no sign-in link sent: the page does not admit the address", "page", pageID, "reason", err.Error())
		return "", false
	}
	return res.Title, true
}
