package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"folio/actors/model/fault"
)

// Error codes of the error envelope (docs/spec.md section 7; the OpenAPI
// document's ErrorCode): the server's own (actors/model/fault), whose one table
// gives each its status (fault.Status).
const (
	CodeInvalidRequest     = fault.Invalid
	CodeUnauthorized       = fault.Unauthorized
	CodeForbidden          = fault.Forbidden
	CodeNotFound           = fault.NotFound
	CodeConflict           = fault.Conflict
	CodeRateLimited        = fault.RateLimited
	CodePayloadTooLarge    = fault.TooLarge
	CodeInternalError      = fault.Internal
	CodeMethodNotAllowed   = fault.MethodNotAllowed
	CodeServiceUnavailable = fault.Unavailable
)

// Error is an answer outside 2xx: the HTTP status and the error envelope
// {error: {code, message, details}}. An answer without an envelope (a proxy's page)
// has an empty Code and the start of its body as Message.
type Error struct {
	Status  int
	Code    string
	Message string
	Details map[string]any
	// RetryAfter is the Retry-After header (429, 503): how long to wait before
	// asking again; zero when absent.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("folio: %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("folio: %d %s: %s", e.Status, e.Code, e.Message)
}

// IsConflict reports whether err is a 409 (a second execution, a page that is no
// longer active, a comment on a finished page…).
func IsConflict(err error) bool { return is(err, fault.Conflict) }

// IsNotFound reports whether err is a 404 (also another tenant's page).
func IsNotFound(err error) bool { return is(err, fault.NotFound) }

// IsUnauthorized reports whether err is a 401 (a missing, invalid or deleted key).
func IsUnauthorized(err error) bool { return is(err, fault.Unauthorized) }

// IsForbidden reports whether err is a 403.
func IsForbidden(err error) bool { return is(err, fault.Forbidden) }

// IsRateLimited reports whether err is a 429.
func IsRateLimited(err error) bool { return is(err, fault.RateLimited) }

// IsUnavailable reports whether err is a 503: the service or something it needs
// did not answer in time; asking again later (RetryAfter) helps.
func IsUnavailable(err error) bool { return is(err, fault.Unavailable) }

// RetryAfter is how long err asks to wait before trying again, and whether it says
// so at all (a 429 or 503 with Retry-After).
func RetryAfter(err error) (time.Duration, bool) {
	var e *Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return e.RetryAfter, true
	}
	return 0, false
}

// is reports whether err is an answer with code's status (the one table,
// fault.Status): an answer without an envelope (a proxy's 503 page) counts by its
// status alone.
func is(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == fault.Status(code)
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 1 << 20

// envelope is the body of every error answer.
type envelope struct {
	Error *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// errorOf reads a non-2xx answer into an *Error; the caller closes the body.
func errorOf(res *http.Response) *Error {
	e := &Error{Status: res.StatusCode, RetryAfter: retryAfterOf(res.Header.Get("Retry-After"))}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var env envelope
	if json.Unmarshal(raw, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		return e
	}
	e.Message = strings.TrimSpace(string(raw))
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "…"
	}
	if e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	return e
}

// retryAfterOf reads Retry-After: delay seconds or an HTTP date.
func retryAfterOf(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
