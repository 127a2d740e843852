// Package webhook is everything about the service's outbound deliveries that does
// not need an actor: the callback and notification settings a page carries
// (on_action, notify) and their checks, the signatures a receiver verifies, and the
// target guard.
//
// The guard keeps deliveries away from the service's own network: a target must be
// http(s), and the address actually dialled must not be loopback, private,
// link-local, CGNAT, multicast or otherwise special. The publish-time check reads
// literal addresses only (it never resolves names, so publishing never waits on
// DNS); the dial-time check resolves the name, checks every address and then dials
// exactly the address it checked, so a name that re-binds between check and connect
// (DNS rebinding) gains nothing.
//
// It is pure: no actors, no HTTP server, no storage.
package webhook
