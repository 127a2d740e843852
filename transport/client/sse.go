package client

import (
	"bufio"
	"bytes"
)

// sseEvent is one dispatched server-sent event: its own id line (empty when it has
// none: the stream's control events) and its data lines joined by "\n".
type sseEvent struct {
	id   string
	data []byte
}

// sseReader reads the text/event-stream format. An event is returned only once the
// blank line that ends it has arrived, so an event cut short by a dropped
// connection is never returned. Comment lines (": keepalive") and fields other
// than id and data are skipped. Unlike a browser's EventSource, an event's id is
// its own: an event without an id line does not inherit the previous one, since
// only events with a stream id are positions to resume from.
type sseReader struct {
	r      *bufio.Reader
	onLine func() // called for every complete line, comments included
}

func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	hasData := false
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			return sseEvent{}, err // a line without its "\n" belongs to a cut event
		}
		if s.onLine != nil {
			s.onLine()
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			if hasData {
				ev.data = bytes.TrimSuffix(ev.data, []byte("\n"))
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id = string(value)
			}
		case "data":
			ev.data = append(append(ev.data, value...), '\n')
			hasData = true
		}
	}
}
