package node

import (
	"time"

	"folio/actors/callback"
	"folio/actors/registry"
	"folio/transport/httpapi"
	"folio/transport/oauth"
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
	var run func(stop <-chan struct{})
	return area{
		mount: func(api *httpapi.Server) {
			run = api.MountSignIn(httpapi.SignInDeps{Mailer: mailer, Providers: providers, DefaultPlan: cfg.DefaultPlan,
				LinksPerEmail: cfg.LinksPerEmail, LinksPerClient: cfg.LinksPerClient, ClaimsPerClient: cfg.ClaimsPerClient})
		},
		run: func(stop <-chan struct{}) {
			done := make(chan struct{})
			go func() { defer close(done); run(stop) }()
			registry.Every(10*time.Minute, stop, func() { _ = n.People.Sweep() })
			<-done
		},
	}
}
