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

// Export writes tenant's entries after sequence after, at most limit of them, one
// ExportLine per line, read in one read transaction (so limit bounds how long it
// is held). It returns how many it wrote and the sequence of the last (after,
// when none): the next page starts after it.
func Export(store *persistence.Store, tenant string, after int64, limit int, w io.Writer) (n int, last int64, err error) {
	var recs []persistence.AuditRecord
	err = store.View(func(tx *persistence.Tx) error {
		for seq := after + 1; len(recs) < limit; seq++ {
			r, ok := tx.AuditRecordAt(tenant, uint64(seq))
			if !ok {
				return nil
			}
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil {
		return 0, after, err
	}
	bw := bufio.NewWriter(w)
	last = after
	for _, r := range recs {
		if err := writeLine(bw, r); err != nil {
			return n, last, err
		}
		n, last = n+1, int64(r.Seq)
	}
	return n, last, bw.Flush()
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
