package auditlog

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"folio/persistence"

	"golang.org/x/mod/sumdb/tlog"
)

// Report is the outcome of VerifyExport.
type Report struct {
	Valid    bool
	Entries  int64   // lines read and found sound before the first bad one
	FirstBad int64   // the first entry that does not hold (0 when valid)
	Reason   string  // why, for a person
	Origin   string  // the checkpoints' origin
	Checked  []int64 // sizes of the checkpoints whose root the export matched
}

type pinned struct {
	size int64
	root tlog.Hash
}

// VerifyExport checks an export (ExportLine per line, from sequence 1) against
// signed checkpoints, with nothing but the verifier key: every checkpoint's
// signature; sequences 1, 2, … without a gap; every chain hash recomputed from the
// entry bytes (persistence.ChainHash); and the RFC 6962 root of the first
// checkpoint-size entries equal to each checkpoint's root. A changed entry whose
// chain hash was left alone is pinpointed by the chain; one whose chain was
// recomputed after it (a rebuilt chain) is caught by the tree, between the last
// checkpoint that holds and the first that does not (more checkpoints narrow it).
// An export shorter than a checkpoint is invalid: entries were removed.
//
// An error is returned for input that cannot be checked at all (a bad key, a
// checkpoint that is not signed by it, checkpoints of different logs).
func VerifyExport(export io.Reader, vkey string, checkpoints [][]byte) (Report, error) {
	var rep Report
	var pins []pinned
	for i, c := range checkpoints {
		origin, size, root, err := OpenCheckpoint(c, vkey)
		if err != nil {
			return rep, fmt.Errorf("checkpoint %d: %w", i+1, err)
		}
		if rep.Origin != "" && origin != rep.Origin {
			return rep, fmt.Errorf("checkpoint %d is of log %q, not %q", i+1, origin, rep.Origin)
		}
		rep.Origin = origin
		pins = append(pins, pinned{size, root})
	}
	slices.SortFunc(pins, func(a, b pinned) int { return cmp.Compare(a.size, b.size) })
	for i := 1; i < len(pins); i++ {
		if pins[i].size == pins[i-1].size && pins[i].root != pins[i-1].root {
			return rep, fmt.Errorf("two checkpoints of size %d have different roots: the log forked; keep both as evidence", pins[i].size)
		}
	}

	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = stored[x]
		}
		return out, nil
	})
	bad := func(seq int64, format string, args ...any) (Report, error) {
		rep.Valid, rep.FirstBad, rep.Reason = false, seq, fmt.Sprintf(format, args...)
		return rep, nil
	}
	goodUpTo := int64(0) // entries covered by a checkpoint that held
	check := func(n int64) (ok bool, why string) {
		for len(pins) > 0 && pins[0].size == n {
			p := pins[0]
			pins = pins[1:]
			root := emptyRoot
			if n > 0 {
				var err error
				if root, err = tlog.TreeHash(n, reader); err != nil {
					return false, err.Error()
				}
			}
			if root != p.root {
				return false, fmt.Sprintf("entries %d to %d do not match the signed checkpoint of size %d: one of them was changed, removed or inserted (and the chain rebuilt after it)", goodUpTo+1, n, n)
			}
			goodUpTo = n
			rep.Checked = append(rep.Checked, n)
		}
		return true, ""
	}
	if ok, why := check(0); !ok {
		return bad(1, "%s", why)
	}
	prev := ""
	br := bufio.NewReader(export)
	for seq := int64(1); ; seq++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, err
		}
		var l ExportLine
		if jerr := json.Unmarshal(line, &l); jerr != nil {
			return bad(seq, "line %d is not an export line: %v", seq, jerr)
		}
		entry := l.Bytes()
		switch {
		case l.Sequence != seq:
			return bad(seq, "entry %d is missing (the line holds sequence %d): removed or reordered", seq, l.Sequence)
		case entry == nil:
			return bad(seq, "entry %d has no entry bytes", seq)
		case persistence.ChainHash(prev, entry) != l.ChainHash:
			return bad(seq, "entry %d does not match its chain hash: it was changed, or an entry before it removed", seq)
		}
		prev = l.ChainHash
		hs, herr := tlog.StoredHashes(seq-1, entry, reader)
		if herr != nil {
			return rep, herr
		}
		stored = append(stored, hs...)
		rep.Entries = seq
		if ok, why := check(seq); !ok {
			return bad(goodUpTo+1, "%s", why)
		}
	}
	if len(pins) > 0 {
		return bad(rep.Entries+1, "the export ends at entry %d but a signed checkpoint covers %d: entries were removed from the end", rep.Entries, pins[0].size)
	}
	rep.Valid = true
	return rep, nil
}
