package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client calls one Folio server with one API key. It is safe for concurrent use.
type Client struct {
	base       string // the server's base URL without a trailing slash; API paths are appended to it
	key        string // the API key; empty: requests carry no Authorization
	hc         *http.Client
	userAgent  string
	streamIdle time.Duration // an event stream silent this long is treated as dropped (0: never)
}

// DefaultUserAgent is the User-Agent of a client made without WithUserAgent.
const DefaultUserAgent = "folio-go-client/1"

// DefaultStreamIdle is how long an event stream may stay silent before the client
// treats the connection as dead and reconnects: three times the server's default
// keepalive interval (30 s), so a half-open connection does not hang a reader.
const DefaultStreamIdle = 90 * time.Second

// Option adjusts a Client made by New.
type Option func(*Client)

// WithHTTPClient sends every request through hc. Waits and event streams stay open
// for minutes, so hc.Timeout should be zero (the context bounds each call) or at
// least longer than the longest wait.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithStreamIdle sets how long an event stream may stay silent before it is
// reconnected (DefaultStreamIdle; 0 never). Keep it above the server's keepalive.
func WithStreamIdle(d time.Duration) Option { return func(c *Client) { c.streamIdle = d } }

// New makes a client of the server at baseURL (such as "https://folio.example.com")
// using apiKey; an empty apiKey makes a client without a credential (Register, or a
// link holder acting on a public page).
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, hc: &http.Client{},
		userAgent: DefaultUserAgent, streamIdle: DefaultStreamIdle}
	for _, o := range opts {
		o(c)
	}
	return c
}

// do sends a JSON request with the client's key and decodes a 2xx answer into out
// (nil: the body is discarded); any other status is an *Error.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	req, err := c.newRequest(ctx, method, path, in)
	if err != nil {
		return err
	}
	c.authorize(req)
	return c.send(req, out)
}

// call is do for a JSON answer of type T: nil and the error when there is one.
func call[T any](ctx context.Context, c *Client, method, path string, in any) (*T, error) {
	var out T
	if err := c.do(ctx, method, path, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// newRequest builds a request for path, a server path such as /v1/pages, with in
// encoded as its JSON body (nil: no body).
func (c *Client) newRequest(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("client: encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.resolve(path), body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

// authorize adds the client's key, when it has one.
func (c *Client) authorize(req *http.Request) {
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
}

// send performs req and decodes a 2xx answer into out; the body is always closed.
func (c *Client) send(req *http.Request, out any) error {
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return errorOf(res)
	}
	if out == nil || res.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("client: decode the answer of %s %s: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// resolve turns a server path (/v1/…, as the API paths and the addresses the server
// hands out are written) into an address under the base URL; an absolute address
// is kept as it is.
func (c *Client) resolve(ref string) string {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		return ref
	}
	return c.base + ref
}

// esc escapes one path segment (an id the server handed out, a template name).
func esc(segment string) string { return url.PathEscape(segment) }

// withQuery appends q to path when it has values.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// setInt adds name=n to q when n is set (positive), leaving the server's default
// otherwise.
func setInt(q url.Values, name string, n int) {
	if n > 0 {
		q.Set(name, fmt.Sprint(n))
	}
}

// setString adds name=s to q when s is not empty.
func setString(q url.Values, name, s string) {
	if s != "" {
		q.Set(name, s)
	}
}

// ListOptions pages through a listing; zero values leave the server's defaults.
type ListOptions struct {
	Limit  int
	Offset int
}

func (o ListOptions) values() url.Values {
	q := url.Values{}
	setInt(q, "limit", o.Limit)
	setInt(q, "offset", o.Offset)
	return q
}

// Ptr returns a pointer to v, for the optional fields of PageUpdate and BlockPatch.
func Ptr[T any](v T) *T { return &v }
