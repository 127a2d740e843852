// Package status tells what went wrong and its HTTP status, for the API (an error
// envelope) and the pages for people (an HTML page) alike: a fault's status is the
// one table's (fault.Status, which the Go client reads too), so the same refusal
// has the same status on both faces.
package status

import (
	"errors"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
)

// RetryAfter is the Retry-After of a 503 that does not know better: a store or page
// that did not answer is usually back within a second or two.
const RetryAfter = "1"

// Of is the fault err stands for and its status. A *fault.Error is itself; an actor
// that did not answer in time and a store that did not answer are 503 (transient:
// the record may well exist); anything else is an internal error, reported without
// its internals (internal is true: the caller logs err in full).
func Of(err error) (fe *fault.Error, code int, internal bool) {
	switch {
	case errors.As(err, &fe):
	case errors.Is(err, registry.ErrTimeout): // the node or its store is slow or was paused
		fe = fault.New(fault.Unavailable, "the page did not answer in time; try again", nil)
	case errors.Is(err, persistence.ErrUnavailable):
		fe = fault.StoreDown()
	default:
		fe, internal = fault.New(fault.Internal, "internal error", nil), true
	}
	return fe, fault.Status(fe.Code), internal
}

// Code is the status of a refusal already known to be a fault.
func Code(fe *fault.Error) int {
	_, code, _ := Of(fe)
	return code
}
