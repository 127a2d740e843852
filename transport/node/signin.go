package node

import (
	"net/url"
	"time"

	"folio/actors/callback"
	"folio/actors/people/signin"
	"folio/actors/registry"
	"folio/transport/httpapi"
	"folio/transport/oauth"
	"folio/transport/web"
)

// OAuthConfig configures one sign-in provider; without a client id the provider is
// off (its routes answer 404). The endpoints default to the real provider's.
type OAuthConfig struct {
	ClientID, ClientSecret string
	AuthURL, TokenURL      string // GitHub: authorize and token endpoints
	APIURL                 string // GitHub: the REST API
	Issuer                 string // Google: the OpenID Connect issuer
}

// signinArea wires sign-in: the providers configured, the mails (through the same
// mailer as notifications), the abuse limits, and the sweep of expired sessions,
// links and flows every ten minutes.
func (n *Node) signinArea(mailer callback.Mailer) area {
	cfg := n.Config
	providers := map[string]oauth.Provider{}
	if g := cfg.GitHub; g.ClientID != "" {
		providers["github"] = oauth.NewGitHub(oauth.GitHubConfig{ClientID: g.ClientID, ClientSecret: g.ClientSecret,
			RedirectURL: cfg.BaseURL + "/v1/auth/oauth/github/callback", AuthURL: g.AuthURL, TokenURL: g.TokenURL, APIURL: g.APIURL})
	}
	if g := cfg.Google; g.ClientID != "" {
		providers["google"] = oauth.NewGoogle(oauth.GoogleConfig{ClientID: g.ClientID, ClientSecret: g.ClientSecret,
			RedirectURL: cfg.BaseURL + "/v1/auth/oauth/google/callback", Issuer: g.Issuer})
	}
	rules := signin.New(signin.Deps{People: n.People, Store: n.Store, Keys: n.Keys, Tenants: n.Tenants, Pages: n.Pages, Mailer: mailer,
		AppURL: cfg.AppURL, Origins: []string{cfg.BaseURL, cfg.PageBaseURL, cfg.AppURL}, DefaultPlan: cfg.DefaultPlan,
		Limits: signin.Limits{LinksPerEmail: cfg.LinksPerEmail, LinksPerClient: cfg.LinksPerClient, ClaimsPerClient: cfg.ClaimsPerClient,
			ClaimsPerPerson: cfg.ClaimsPerPerson, Window: cfg.SignInWindow,
			ClaimFailureBudget: cfg.ClaimFailureBudget, RegisterMailsPerRecipient: cfg.RegisterMailsPerRecipient,
			RegisterMailsPerClient: cfg.RegisterMailsPerClient, RegisterMailWindow: cfg.RegisterMailWindow},
		Now: cfg.Now, Registry: n.Registry, Log: cfg.Log})
	return area{
		mount: func(api *httpapi.Server) {
			api.MountSignIn(httpapi.SignInDeps{Rules: rules, Providers: providers})
		},
		// The pages apply the same rules to their forms (web.Config.SignIn).
		site: func(c *web.Config) { c.SignIn = rules },
		run: func(stop <-chan struct{}) {
			done := make(chan struct{})
			go func() { defer close(done); rules.Run(stop) }()
			registry.Every(10*time.Minute, stop, func() { _ = n.People.Sweep() })
			<-done
		},
	}
}

// formTargets are the origins the sign-in buttons' forms are redirected to (the
// pages' CSP form-action allows them): the configured providers' authorization
// origins. Google's authorization endpoint is discovered from its issuer; its
// origin is the issuer's (true of Google and of the test's fake).
func formTargets(cfg Config) []string {
	var out []string
	add := func(raw, def string) {
		if raw == "" {
			raw = def
		}
		if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
			out = append(out, u.Scheme+"://"+u.Host)
		}
	}
	if cfg.GitHub.ClientID != "" {
		add(cfg.GitHub.AuthURL, "https://github.com/login/oauth/authorize")
	}
	if cfg.Google.ClientID != "" {
		add(cfg.Google.Issuer, "https://accounts.google.com")
	}
	return out
}
