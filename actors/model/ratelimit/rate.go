package ratelimit

// Rate is the limit a request was last counted against, what a transport writes
// as its RateLimit and RateLimit-Policy headers (and Retry-After when Decision
// refused it; a refusal no Decision carries, such as the global claim budget,
// says its seconds in its fault's retry_after). A zero Rate (no Policy) counted
// nothing: the request was not subject to the limit, or was refused for its
// shape first.
type Rate struct {
	Policy   string
	Decision Decision
}
