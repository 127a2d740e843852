// Package signin holds the rules of signing in and claiming an agent's account,
// and their state, for both HTTP faces (transport/httpapi, transport/web): the
// checks of a sign-in link request, the abuse limits of sign-in mails and claims,
// the global budget of failed claims, the mails (sent in the background), the
// first sign-in's workspace and its welcome key. Its methods take plain values
// (ids, the client address, the e-mail, the proof) and return results and fault
// errors; a limit an attempt was counted against comes back as a Rate, which the
// transports write as rate headers.
package signin

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/callback"
	"folio/actors/model/ratelimit"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
)

// Limits are the abuse limits, each per Window (docs/behaviour.md): sign-in mails
// per e-mail address and per client address (5 and 20), claim attempts per client
// address and per person (10 each).
type Limits struct {
	LinksPerEmail, LinksPerClient    int
	ClaimsPerClient, ClaimsPerPerson int
	Window                           time.Duration
	// ClaimFailureBudget is the global budget of failed claim attempts per Window,
	// across all addresses (budget.go; default 100, negative: none).
	ClaimFailureBudget int
	// Claim mails at registration (owner_email) per recipient and per registering
	// client address, per RegisterMailWindow (3 and 10 per 24 hours): registration
	// is anonymous, so it must not become a way to mail anyone at will.
	RegisterMailsPerRecipient, RegisterMailsPerClient int
	RegisterMailWindow                                time.Duration
}

// withDefaults fills the limits left zero.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.LinksPerEmail, 5)
	def(&l.LinksPerClient, 20)
	def(&l.ClaimsPerClient, 10)
	def(&l.ClaimsPerPerson, 10)
	def(&l.RegisterMailsPerRecipient, 3)
	def(&l.RegisterMailsPerClient, 10)
	if l.ClaimFailureBudget == 0 {
		l.ClaimFailureBudget = 100
	}
	if l.Window <= 0 {
		l.Window = 15 * time.Minute
	}
	if l.RegisterMailWindow <= 0 {
		l.RegisterMailWindow = 24 * time.Hour
	}
	return l
}

// Deps are what the rules read and write.
type Deps struct {
	People  *people.Directory
	Store   *persistence.Store
	Keys    *tenant.Keyring
	Tenants *registry.Registry
	Pages   *registry.Registry
	Mailer  callback.Mailer
	// AppURL is the base of the links in the mails; Origins are this service's own
	// addresses, where a sign-in may lead (people.SafeRedirect).
	AppURL  string
	Origins []string
	// DefaultPlan is the plan of a workspace created at a first sign-in.
	DefaultPlan string
	Limits      Limits
	Now         func() time.Time
	// Registry takes the claim budget's metrics (nil: a registry of its own).
	Registry prometheus.Registerer
	Log      *slog.Logger
}

// Rules are the sign-in and claim rules of one node, with their state (limits,
// budget, mail queue, welcome keys), shared by both HTTP faces.
type Rules struct {
	d      Deps
	mails  chan mailJob       // sign-in and claim mails, sent in the background (mail.go)
	links  *ratelimit.Limiter // sign-in mails by e-mail and by client address
	claims *ratelimit.Limiter // claim attempts by person and by client address
	// regMails: claim mails at registration, by recipient and by client address.
	regMails *ratelimit.Limiter
	budget   *claimBudget // failed claims across every address
	welcome  welcomeKeys  // a first sign-in's new API key, until it is shown
}

// New makes the rules; run Run for the mails to go out.
func New(d Deps) *Rules {
	d.Limits = d.Limits.withDefaults()
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	if d.DefaultPlan == "" {
		d.DefaultPlan = "free"
	}
	return &Rules{d: d, mails: make(chan mailJob, 1024),
		links: ratelimit.New(d.Now, 0), claims: ratelimit.New(d.Now, 0), regMails: ratelimit.New(d.Now, 0),
		budget:  newClaimBudget(d.Registry, d.Now, d.Limits.ClaimFailureBudget, d.Limits.Window),
		welcome: welcomeKeys{m: map[string]welcomeKey{}}}
}

// Lifetimes are the people directory's lifetimes (sessions, links, flows).
func (ru *Rules) Lifetimes() people.Lifetimes { return ru.d.People.Lifetimes() }
