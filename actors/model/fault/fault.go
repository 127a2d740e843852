// Package fault is the domain's error vocabulary. Every refusal an actor gives is a
// *Error whose Code maps one-to-one onto the HTTP status and the specification's
// envelope {error:{code,message,details}}.
package fault

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Codes of the specification (section 7).
const (
	Invalid      = "INVALID_REQUEST"
	Unauthorized = "UNAUTHORIZED"
	Forbidden    = "FORBIDDEN"
	NotFound     = "NOT_FOUND"
	Conflict     = "CONFLICT"
	RateLimited  = "RATE_LIMITED"
	TooLarge     = "PAYLOAD_TOO_LARGE"
	Internal     = "INTERNAL_ERROR"
	// Unavailable (503) is not in the specification: something a request needs cannot
	// be reached now (an identity provider, a page whose node or store is too slow to
	// answer in time); retrying later helps.
	Unavailable = "SERVICE_UNAVAILABLE"
)

// Error is a refusal with a machine-readable code and details.
type Error struct {
	Code    string
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New builds an Error; details may be nil.
func New(code, msg string, details map[string]any) *Error {
	if details == nil {
		details = map[string]any{}
	}
	return &Error{Code: code, Message: msg, Details: details}
}

// Field is a 400 naming the field at fault and the constraint it broke.
func Field(field, constraint, format string, args ...any) *Error {
	return New(Invalid, fmt.Sprintf(format, args...), map[string]any{"field": field, "constraint": constraint})
}

// Missing is a 404 for a resource kind and id.
func Missing(kind, id string) *Error {
	return New(NotFound, kind+" not found", map[string]any{"resource": kind, "id": id})
}

// StoreDown is the 503 for a request whose store read or write failed (the store
// did not answer: a PostgreSQL restart, a dropped connection). It is never a 401
// or a 404: the record may well exist. The transport adds Retry-After.
func StoreDown() *Error {
	return New(Unavailable, "the store did not answer; try again", map[string]any{"reason": "store"})
}

// State is a 409 for an operation the current status does not allow.
func State(op, status string) *Error {
	return New(Conflict, fmt.Sprintf("cannot %s a page that is %s", op, status), map[string]any{"status": status})
}

// Limit is a 400 for a field over a limit: it names the field, the constraint and
// the limit.
func Limit(field, constraint string, limit int, format string, args ...any) *Error {
	e := Field(field, constraint, format, args...)
	e.Details["limit"] = limit
	return e
}

// DecodeJSON decodes raw into dst; a field of the wrong JSON type is a 400 naming
// it under prefix ("on_action.retry.max_attempts must be a number").
func DecodeJSON(prefix string, raw json.RawMessage, dst any) error {
	err := json.Unmarshal(raw, dst)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		field := prefix
		if te.Field != "" {
			field += "." + te.Field
		}
		return Field(field, "type", "%s must be %s", field, jsonType(te.Type.Kind().String()))
	}
	return Field(prefix, "type", "%s is not valid JSON: %v", prefix, err)
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "bool":
		return "a boolean"
	}
	return "an object"
}
