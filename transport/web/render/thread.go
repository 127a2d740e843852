package render

import (
	"bytes"
	"html/template"
)

// sectionEnd closes every top-level block's box (writeBox).
const sectionEnd = "</section>\n"

// attachThread puts a top-level block's comment thread (HTML the caller built,
// escaped) inside its box, just before the box closes, so the thread is
// part of the block: it moves, is replaced and is read with it. A block that was
// not drawn, or was cut short, gets none; an empty thread writes nothing.
func attachThread(buf *bytes.Buffer, start int, thread template.HTML) {
	if thread == "" || buf.Len() <= start || !bytes.HasSuffix(buf.Bytes()[start:], []byte(sectionEnd)) {
		return
	}
	buf.Truncate(buf.Len() - len(sectionEnd))
	buf.WriteString(string(thread))
	buf.WriteString(sectionEnd)
}
