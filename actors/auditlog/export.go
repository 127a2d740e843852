package auditlog

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"folio/persistence"
)

// ExportLine is one line of an export: an entry's sequence, its chain hash, and
// the entry's exact bytes, which both the chain and the tree hash. The bytes are
// written as they are stored, as the JSON value "entry" when they are JSON on one
// line (Folio's entries are), else base64 in "entry_base64"; a reader takes
// "entry" as raw bytes (json.RawMessage), never re-encoded.
type ExportLine struct {
	Sequence    int64           `json:"sequence"`
	ChainHash   string          `json:"chain_hash"`
	Entry       json.RawMessage `json:"entry,omitempty"`
	EntryBase64 []byte          `json:"entry_base64,omitempty"`
}

// Bytes are the entry's exact stored bytes.
func (l ExportLine) Bytes() []byte {
	if l.Entry != nil {
		return l.Entry
	}
	return l.EntryBase64
}

// Page is one page of an export: records read in one read transaction.
type Page []persistence.AuditRecord

// ReadPage reads tenant's entries after sequence after, at most limit of them, in
// one read transaction (so limit bounds how long it is held).
func ReadPage(store *persistence.Store, tenant string, after int64, limit int) (Page, error) {
	var recs Page
	err := store.View(func(tx *persistence.Tx) error {
		for seq := after + 1; len(recs) < limit; seq++ {
			r, ok := tx.AuditRecordAt(tenant, uint64(seq))
			if !ok {
				return nil
			}
			recs = append(recs, r)
		}
		return nil
	})
	return recs, err
}

// Last is the sequence of the page's last entry (after, when empty): the next
// page starts after it.
func (p Page) Last(after int64) int64 {
	if len(p) == 0 {
		return after
	}
	return int64(p[len(p)-1].Seq)
}

// WriteTo writes the page, one ExportLine per line.
func (p Page) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	for _, r := range p {
		if err := writeLine(bw, r); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// writeLine writes the entry's bytes verbatim between the fields around it.
func writeLine(w *bufio.Writer, r persistence.AuditRecord) error {
	hash, _ := json.Marshal(r.Hash)
	_, _ = w.WriteString(`{"sequence":` + strconv.FormatUint(r.Seq, 10) + `,"chain_hash":`)
	_, _ = w.Write(hash)
	if json.Valid(r.Entry) && !containsNewline(r.Entry) {
		_, _ = w.WriteString(`,"entry":`)
		_, _ = w.Write(r.Entry)
	} else {
		b64, _ := json.Marshal(r.Entry) // []byte marshals as base64
		_, _ = w.WriteString(`,"entry_base64":`)
		_, _ = w.Write(b64)
	}
	_, err := w.WriteString("}\n")
	return err
}

func containsNewline(b []byte) bool {
	for _, c := range b {
		if c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}
