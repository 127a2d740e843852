// Package frame is the one encoding of a stream event, built once and shared by
// every subscriber of every transport: the JSON payload, the complete server-sent
// event, that event laid out as one HTTP/1.1 chunk (so that a hijacked SSE
// connection writes it as is), and the JSON as one WebSocket message (so that a
// WebSocket connection writes it as is). The domain builds frames; transport/stream
// writes them. Frames are immutable once built.
package frame

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
)

// Frame is one encoded event.
type Frame struct {
	Seq     uint64 // the tenant's event sequence number (the stream id); 0 for control frames
	Type    string
	Comment bool   // a comment.* event (the comment stream carries only these)
	JSON    []byte // nil for SSE-only control lines (keepalive); a slice of WS otherwise
	SSE     []byte
	// Chunk is SSE framed as one HTTP/1.1 chunk ("<hex size>\r\n" SSE "\r\n"); SSE
	// is a slice of it, so a stream writing a chunked response sends it as is.
	Chunk []byte
	// WS is the complete WebSocket frame a server sends (RFC 6455 §5.2: final,
	// unmasked; a text frame holding JSON for events): its header depends only on
	// the payload's length, so every connection sends the same bytes. Nil for
	// SSE-only lines; transport/stream builds its own control frames (ping, close).
	WS []byte
}

// New frames an encoded payload: the SSE form is "id: <id>\ndata: <json>\n\n" (no
// id line when id is "") and the WebSocket form is one text message holding the
// payload.
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
	f.WS = AppendWSHeader(make([]byte, 0, wsHeaderSize(len(payload))+len(payload)), OpText, len(payload))
	head := len(f.WS)
	f.WS = append(f.WS, payload...)
	f.Seq, f.Type, f.Comment, f.JSON = seq, typ, strings.HasPrefix(typ, "comment."), f.WS[head:len(f.WS):len(f.WS)]
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

// WebSocket opcodes a server sends (RFC 6455 §5.2).
const (
	OpText  byte = 0x1
	OpClose byte = 0x8
	OpPing  byte = 0x9
	OpPong  byte = 0xA
)

// wsHeaderSize is the length of the header of an unmasked WebSocket frame whose
// payload is n bytes: 2, then 2 more from 126 bytes, 8 more from 65,536.
func wsHeaderSize(n int) int {
	switch {
	case n < 126:
		return 2
	case n <= 0xFFFF:
		return 4
	default:
		return 10
	}
}

// AppendWSHeader appends the header of a final, unmasked WebSocket frame with the
// opcode and an n-byte payload (the shortest length encoding, as §5.2 requires).
func AppendWSHeader(b []byte, op byte, n int) []byte {
	b = append(b, 0x80|op)
	switch {
	case n < 126:
		return append(b, byte(n))
	case n <= 0xFFFF:
		return binary.BigEndian.AppendUint16(append(b, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
}
