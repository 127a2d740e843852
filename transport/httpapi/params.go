package httpapi

import (
	"net/http"
	"strconv"

	"folio/actors/model/fault"
)

// maxQueryInt is the largest offset or page number a listing accepts.
const maxQueryInt = 1<<31 - 1

// pageID is the id of the page a request names. An empty id or one longer than 64
// characters names no page: 404, and no actor is asked (nor spawned) for it.
func pageID(id string) (string, error) {
	if id == "" || len(id) > 64 {
		return "", fault.Missing("page", id)
	}
	return id, nil
}

// limitOffset reads a listing's window: limit (1..maxLimit, default def) and offset
// (0..maxQueryInt, default 0). Every listing reads them here; the defaults and maxima
// of each route are in the OpenAPI document.
func limitOffset(r *http.Request, def, maxLimit int) (limit, offset int, err error) {
	q := r.URL.Query()
	if limit, err = intParam(q.Get("limit"), "limit", def, 1, maxLimit); err != nil {
		return 0, 0, err
	}
	offset, err = intParam(q.Get("offset"), "offset", 0, 0, maxQueryInt)
	return limit, offset, err
}

// intParam reads an optional whole-number query parameter within [lo, hi]; absent
// is def. Out of range is 400 naming the bounds.
func intParam(raw, name string, def, lo, hi int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, fault.Field(name, "integer", "%s must be a whole number", name)
	}
	if n < lo || n > hi {
		e := fault.Field(name, "range", "%s must be between %d and %d", name, lo, hi)
		e.Details["minimum"], e.Details["maximum"] = lo, hi
		return 0, e
	}
	return n, nil
}
