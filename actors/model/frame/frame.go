// Package frame is the one encoding of a stream event, built once and shared by
// every subscriber of every transport: the JSON payload (the WebSocket message and
// the SSE data line are the same bytes), the complete server-sent event, and that
// event laid out as one HTTP/1.1 chunk so that a hijacked SSE connection writes it
// as is. The domain builds frames; transport/stream writes them. Frames are
// immutable once built.
package frame

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Frame is one encoded event.
type Frame struct {
	Seq     uint64 // the tenant's event sequence number (the stream id); 0 for control frames
	Type    string
	Comment bool   // a comment.* event (the comment stream carries only these)
	JSON    []byte // nil for SSE-only control lines (keepalive)
	SSE     []byte
	// Chunk is SSE framed as one HTTP/1.1 chunk ("<hex size>\r\n" SSE "\r\n"); SSE
	// is a slice of it, so a stream writing a chunked response sends it as is.
	Chunk []byte
}

// New frames an encoded payload: the SSE form is "id: <id>\ndata: <json>\n\n" (no
// id line when id is "").
func New(seq uint64, typ, id string, payload []byte) *Frame {
	size := len(payload) + 8 // "data: " + "\n\n"
	if id != "" {
		size += len(id) + 5 // "id: " + "\n"
	}
	f := Raw(size, func(sse []byte) []byte {
		if id != "" {
			sse = append(sse, "id: "...)
			sse = append(sse, id...)
			sse = append(sse, '\n')
		}
		sse = append(sse, "data: "...)
		sse = append(sse, payload...)
		return append(sse, "\n\n"...)
	})
	f.Seq, f.Type, f.Comment, f.JSON = seq, typ, strings.HasPrefix(typ, "comment."), payload
	return f
}

// Raw builds a frame of size SSE bytes written by fill (which appends to the slice
// it gets), laid out inside its HTTP chunk: for SSE-only lines such as keepalive
// comments.
func Raw(size int, fill func(sse []byte) []byte) *Frame {
	head := strconv.AppendInt(make([]byte, 0, size+16), int64(size), 16)
	head = append(head, '\r', '\n')
	start := len(head)
	buf := fill(head)
	if len(buf)-start != size {
		panic("frame: size mismatch")
	}
	buf = append(buf, '\r', '\n')
	return &Frame{SSE: buf[start : start+size : start+size], Chunk: buf}
}

// Control is a frame without a stream id (connected, reset): its payload is v.
func Control(typ string, v any) *Frame {
	b, _ := json.Marshal(v)
	return New(0, typ, "", b)
}
