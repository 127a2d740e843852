package fault

// MethodNotAllowed (405) is a route that exists for other methods (the answer's
// Allow header names them); no actor gives it.
const MethodNotAllowed = "METHOD_NOT_ALLOWED"

// statuses is the one table from a code to its HTTP status (specification §7):
// the API's envelope, the pages for people and the Go client all read it, so the
// same refusal has the same status on every face. Every code above has a row.
var statuses = map[string]int{
	Invalid:          400,
	Unauthorized:     401,
	Forbidden:        403,
	NotFound:         404,
	MethodNotAllowed: 405,
	Conflict:         409,
	TooLarge:         413,
	RateLimited:      429,
	Internal:         500,
	Unavailable:      503,
}

// Status is the HTTP status of code; a code not in the table is 500.
func Status(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return 500
}

// Codes is every code of the table, in status order.
func Codes() []string {
	return []string{Invalid, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, TooLarge, RateLimited, Internal, Unavailable}
}
