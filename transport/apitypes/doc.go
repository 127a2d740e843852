// Package apitypes holds the named answers of Folio's HTTP API, defined once: the
// server (transport/httpapi) encodes them and the Go client (transport/client)
// decodes the same types, which it re-exports under its own names. Their JSON
// names are the wire names of transport/httpapi/openapi.json; the client's
// TestTypesMatchTheOpenAPIDocument checks them.
//
// The package imports nothing of Folio: the client stays usable on its own, and
// the server depends on the wire shapes, not on its client.
//
// Conventions:
//   - A member that is null on the wire when unset is a NullTime or NullString
//     (zero <-> null) where the server has no other way to say "unset", and a
//     pointer where null and empty differ (a comment may be "").
//   - Open-ended JSON (block data) is json.RawMessage.
//   - A quota that is null on the wire when unlimited is a Limit (0: unlimited).
//   - A listing whose elements the server writes from its own records (a stored
//     page through its view, an agent event's stored bytes, an audit entry) is a
//     window generic in its element (PageList[P], EventList[E], ...): one
//     declaration of the envelope, the server filling it with its records and the
//     client reading it with its structured element, which is the one definition
//     of the element's shape (httpapi's TestTheServerWritesTheClientsShapes holds
//     the two sides to the same members).
package apitypes
