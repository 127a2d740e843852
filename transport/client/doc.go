// Package client is the typed Go client of Folio's HTTP API, for agents (and
// Folio's own MCP server and bench harness): every request and answer is a struct
// whose JSON names are the wire names of transport/httpapi/openapi.json, which a
// test checks in both directions (schema_test.go).
//
// Conventions, the same in every file:
//   - Every method takes a context first and returns a typed result; any answer
//     outside 2xx is an *Error carrying the error envelope (error.go).
//   - A request struct's empty fields are left out of the body, so the server's
//     default applies; PageUpdate uses pointers, because there "absent" and "empty"
//     differ.
//   - In an answer, a scalar that may be null reads as its zero value ("" or a
//     zero time.Time), and an object that may be null is a pointer.
//   - Open-ended JSON (block data, event data, callback data) is kept as any or
//     json.RawMessage: the block catalog is large and the client does not track it.
//
// Receiving: Events is the agent's event stream, resumed after a dropped
// connection without loss or repetition (stream.go); Wait long-polls a page's
// decision (wait.go); VerifySignature and ParseCallback check the signed callbacks
// Folio sends (signature.go, callback.go).
package client
