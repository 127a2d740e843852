package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// GitHubConfig configures sign-in with GitHub. Empty URLs take GitHub's own.
type GitHubConfig struct {
	ClientID, ClientSecret, RedirectURL string
	AuthURL                             string       // default https://github.com/login/oauth/authorize
	TokenURL                            string       // default https://github.com/login/oauth/access_token
	APIURL                              string       // default https://api.github.com
	HTTPClient                          *http.Client // nil: a client with a 10 s timeout
}

// githubBodyLimit bounds what is read of a GitHub API response.
const githubBodyLimit = 1 << 20

type gitHub struct {
	config *oauth2.Config
	api    string // no trailing slash
	client *http.Client
}

var _ Provider = (*gitHub)(nil)

// NewGitHub returns the GitHub provider. It asks for read:user and user:email, the
// least that reads the account's id and its verified addresses.
func NewGitHub(c GitHubConfig) Provider {
	return &gitHub{
		config: &oauth2.Config{
			ClientID:     c.ClientID,
			ClientSecret: c.ClientSecret,
			RedirectURL:  c.RedirectURL,
			Scopes:       []string{"read:user", "user:email"},
			Endpoint: oauth2.Endpoint{
				AuthURL:   cmp.Or(c.AuthURL, "https://github.com/login/oauth/authorize"),
				TokenURL:  cmp.Or(c.TokenURL, "https://github.com/login/oauth/access_token"),
				AuthStyle: oauth2.AuthStyleInParams,
			},
		},
		api:    strings.TrimSuffix(cmp.Or(c.APIURL, "https://api.github.com"), "/"),
		client: clientOrDefault(c.HTTPClient),
	}
}

func (g *gitHub) Name() string { return "github" }

func (g *gitHub) AuthURL(state, verifier string) string {
	return g.config.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))
}

// Identity is the account's numeric id and its primary verified e-mail, or, when the
// primary one is not verified, another verified one.
func (g *gitHub) Identity(ctx context.Context, code, verifier string) (Identity, error) {
	tok, err := exchange(ctx, g.config, g.client, code, verifier)
	if err != nil {
		return Identity{}, fmt.Errorf("github: %w", err)
	}
	var user struct {
		ID    int64   `json:"id"`
		Login string  `json:"login"`
		Name  *string `json:"name"`
	}
	if err := g.get(ctx, tok.AccessToken, "/user", &user); err != nil {
		return Identity{}, err
	}
	if user.ID <= 0 {
		return Identity{}, fmt.Errorf("github: GET /user: no account id")
	}
	var emails []gitHubEmail
	if err := g.get(ctx, tok.AccessToken, "/user/emails", &emails); err != nil {
		return Identity{}, err
	}
	email, ok := verifiedEmail(emails)
	if !ok {
		return Identity{}, fmt.Errorf("github: account %d: %w", user.ID, ErrNoVerifiedEmail)
	}
	name := user.Login
	if user.Name != nil && *user.Name != "" {
		name = *user.Name
	}
	return Identity{
		Provider: "github",
		Subject:  strconv.FormatInt(user.ID, 10),
		Email:    strings.ToLower(email),
		Name:     name,
	}, nil
}

// gitHubEmail is one entry of GET /user/emails.
type gitHubEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// verifiedEmail is the primary address if it is verified, else the first verified
// one; ok is false when none is.
func verifiedEmail(emails []gitHubEmail) (email string, ok bool) {
	for _, e := range emails {
		if e.Primary && e.Verified && e.Email != "" {
			return e.Email, true
		}
	}
	for _, e := range emails {
		if e.Verified && e.Email != "" {
			return e.Email, true
		}
	}
	return "", false
}

// get decodes the JSON answer to GET api+path made with the access token. Anything
// but a 2xx answer is an error naming path and status; at most githubBodyLimit bytes
// are read.
func (g *gitHub) get(ctx context.Context, accessToken, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.api+path, nil)
	if err != nil {
		return fmt.Errorf("github: GET %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	res, err := g.client.Do(req)
	if err != nil {
		return fmt.Errorf("github: GET %s: %w", path, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("github: GET %s: %d %s", path, res.StatusCode, http.StatusText(res.StatusCode))
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, githubBodyLimit)).Decode(v); err != nil {
		return fmt.Errorf("github: GET %s: decoding the answer: %w", path, err)
	}
	return nil
}
