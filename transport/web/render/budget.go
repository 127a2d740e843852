package render

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// The output budget. Every byte a block draws goes through a sink whose limit is the
// block's room (limits.go: blockFactor × its stored size + blockConst, and never more
// than what is left of the page's MaxBytes). A write past the limit fails, which
// stops the block's template on the spot (html/template returns the writer's first
// error), so neither the bytes nor the work of an oversized block are ever spent.
// What the block wrote up to there stays: cut ends it at a tag boundary, closes the
// elements left open and adds the visible "content truncated" note (markerReserve
// bytes are kept free for that), so the page around it stays well formed.

// errFull is the error of a write past a sink's limit.
var errFull = errors.New("render: output budget used up")

// sink is the writer a block is drawn through. Invariant: buf.Len() <= limit. Once
// a write failed (full), every later one fails too, so nothing written after a
// refused piece can land out of order.
type sink struct {
	buf   *bytes.Buffer
	limit int
	full  bool
}

func (s *sink) Write(p []byte) (int, error) {
	if s.full || s.buf.Len()+len(p) > s.limit {
		s.full = true
		return 0, errFull
	}
	return s.buf.Write(p)
}

// str writes p, or marks the sink full when it does not fit.
func (s *sink) str(p string) {
	if s.full || s.buf.Len()+len(p) > s.limit {
		s.full = true
		return
	}
	s.buf.WriteString(p)
}

// markerReserve is what a block keeps free of its room for the end cut writes (the
// closing tags and the note); a block whose room is smaller is not drawn.
const markerReserve = 2048

// blockMarker is the note at the end of a block that was cut.
const blockMarker = `<p class="truncated" role="note"><strong>Content truncated.</strong> ` +
	`This block is larger than the review page draws, so the rest of it is not shown. ` +
	`Ask the agent that published the page for a shorter version; its full data stays readable through the API.</p>`

// pageMarker is the note after the last block drawn when the page's budget is used up.
func pageMarker(notShown int) string {
	what := "1 more block is"
	if notShown != 1 {
		what = strconv.Itoa(notShown) + " more blocks are"
	}
	return `<p class="truncated page-truncated" role="note"><strong>Content truncated.</strong> ` + what +
		` not shown: this page is larger than the review page draws. ` +
		`Ask the agent that published it to split it into smaller pages; its full data stays readable through the API.</p>` + "\n"
}

// void elements have no end tag.
var void = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// cut ends a block drawn from start that ran out of room: it drops a tag, entity or
// character left half written at the end, closes every element still open (the
// block's box last, after the note marker), and never writes more than
// markerReserve bytes past what was there. Elements opened too deep for their end
// tags to fit in the reserve are dropped with everything after them.
func cut(buf *bytes.Buffer, start int, marker string) {
	b := buf.Bytes()[start:]
	end := len(b)
	if lt := bytes.LastIndexByte(b, '<'); lt > bytes.LastIndexByte(b, '>') {
		end = lt // inside a tag
	}
	if amp := bytes.LastIndexByte(b[:end], '&'); amp >= 0 && amp > bytes.LastIndexByte(b[:end], ';') &&
		amp > bytes.LastIndexByte(b[:end], '>') && end-amp <= 32 {
		end = amp // inside an entity
	}
	for i := 0; i < utf8.UTFMax-1 && end > 0; i++ { // inside a character
		if r, size := utf8.DecodeLastRune(b[:end]); r != utf8.RuneError || size != 1 {
			break
		}
		end--
	}
	type open struct {
		name string
		at   int
	}
	var stack []open
	z := html.NewTokenizer(bytes.NewReader(b[:end]))
	at := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := len(z.Raw())
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if !void[string(name)] {
				stack = append(stack, open{string(name), at})
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].name == string(name) {
					stack = stack[:i]
					break
				}
			}
		}
		at += raw
	}
	closing := func(n int) int { // bytes of the end tags of stack[:n]
		size := 0
		for _, o := range stack[:n] {
			size += len(o.name) + 3
		}
		return size
	}
	n := len(stack)
	for n > 1 && closing(n)+len(marker) > markerReserve {
		n--
		end = stack[n].at
	}
	buf.Truncate(start + end)
	for i := n - 1; i >= 1; i-- {
		buf.WriteString("</" + stack[i].name + ">")
	}
	buf.WriteString(marker)
	if n >= 1 {
		buf.WriteString("</" + stack[0].name + ">\n")
	}
}
