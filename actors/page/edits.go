package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/model/textdiff"
)

// Approve with edits. A reviewer may correct the top-level blocks an agent marked
// `editable: true` (blocks/editable.go) and approve the corrected version. The
// edits travel with the decision and only with one that approves and completes the
// page (any other execution naming edits is 400: a rejection's suggestions belong
// in its comment). They change the block's text, never its shape, and are checked
// like the block at publish, more strictly: the edited member must have its type
// (400 naming the field), and the edited block's data is at most Limits.EditBytes.
//
// An edit does not make a new content version: the decision names the version the
// reviewer saw (page_version, content_hash of the agent's content) and carries,
// per edited block, the data after the edit and a unified diff against the agent's
// version. The page's blocks stay the agent's, so the content hash keeps covering
// what the agent wrote; the review page draws the edited version over them with an
// "edited by" marker and the agent's original one click away.

// EditRequest is one block's edit as execute-action receives it: content for a
// text, rich_text or code block; values (one per pair, in order) for a key_value
// block; rows (one per row, column key -> new cell; a key left out keeps its cell)
// for a table. A string sent for a value or cell whose agent's value is a number
// (or a boolean) becomes one when it reads as one, so a form's typed text keeps
// the agent's types.
type EditRequest struct {
	BlockID string                       `json:"block_id"`
	Content *string                      `json:"content,omitempty"`
	Values  []json.RawMessage            `json:"values,omitempty"`
	Rows    []map[string]json.RawMessage `json:"rows,omitempty"`
}

// Edit is one block's edit as recorded with the decision (Execution, audit,
// action.executed, wait, MCP): the block's data after the edit and the unified
// diff of its text (editText) from the agent's version, at most maxDiffBytes
// (DiffTruncated when cut).
type Edit struct {
	BlockID       string          `json:"block_id"`
	Type          string          `json:"type"`
	Data          json.RawMessage `json:"data"`
	Diff          string          `json:"diff"`
	DiffTruncated bool            `json:"diff_truncated,omitempty"`
}

// DefaultEditBytes bounds an edited block's data when Limits.EditBytes is zero.
const DefaultEditBytes = 256 << 10

// maxDiffBytes bounds one edit's diff.
const maxDiffBytes = 64 << 10

func (l Limits) editBytes() int {
	if l.EditBytes > 0 {
		return l.EditBytes
	}
	return DefaultEditBytes
}

// checkEdits validates the edits of a decision against the page's blocks and
// returns them as recorded; an edit that leaves its block as the agent wrote it is
// dropped. by names the reviewer in the diff's header.
func checkEdits(p *Page, in []EditRequest, by string, lim Limits) ([]Edit, error) {
	seen := make(map[string]bool, len(in))
	var out []Edit
	for i, e := range in {
		at := fmt.Sprintf("edits[%d]", i)
		if e.BlockID == "" {
			return nil, fault.Field(at+".block_id", "required", "%s.block_id is required: name the block you edited", at)
		}
		if seen[e.BlockID] {
			return nil, fault.Field(at+".block_id", "unique", "block %q is edited twice; send one edit per block", e.BlockID)
		}
		seen[e.BlockID] = true
		idx := -1
		for j, b := range p.Blocks {
			if b.ID == e.BlockID {
				idx = j
			}
		}
		if idx < 0 {
			return nil, fault.Field(at+".block_id", "exists", "the page has no top-level block %q; edit only blocks it shows", e.BlockID)
		}
		b := p.Blocks[idx]
		if !b.Editable || !blocks.EditableType(b.Type) {
			e := fault.Field(at+".block_id", "editable", "block %q is not editable: the agent did not mark it editable: true; leave it out of edits and say what should change in your comment", b.ID)
			e.Details["block_id"] = b.ID
			return nil, e
		}
		before, err := decodeData(b.Data)
		if err != nil {
			return nil, fault.Field(at+".block_id", "editable", "block %q holds data that cannot be edited (not a JSON object)", b.ID)
		}
		after, _ := decodeData(b.Data) // a second copy to change
		if err := editData(at, b.Type, after, e); err != nil {
			return nil, err
		}
		old, _ := encodeData(before)
		data, err := encodeData(after)
		if err != nil {
			return nil, fault.Field(at, "type", "%s could not be encoded", at)
		}
		if bytes.Equal(old, data) {
			continue // as the agent wrote it: no edit
		}
		if n := len(data); n > lim.editBytes() {
			return nil, fault.Limit(at, "max_bytes", lim.editBytes(), "the edited block %q would hold %d bytes of data; the limit is %d: shorten your edit", b.ID, n, lim.editBytes())
		}
		diff, cut := textdiff.Unified(editText(b.Type, before), editText(b.Type, after),
			fmt.Sprintf("%s (agent, version %d)", b.ID, p.Version), fmt.Sprintf("%s (edited by %s)", b.ID, by), maxDiffBytes)
		out = append(out, Edit{BlockID: b.ID, Type: b.Type, Data: data, Diff: diff, DiffTruncated: cut})
	}
	return out, nil
}

// editData writes edit e into m, the data of a block of type t.
func editData(at, t string, m map[string]any, e EditRequest) error {
	wrong := func(want string) error {
		return fault.Field(at, "shape", "a %s block is edited with %s only; send {\"block_id\": …, %s}", t, want, want)
	}
	switch t {
	case "text", "rich_text", "code":
		if e.Content == nil || e.Values != nil || e.Rows != nil {
			return wrong(`"content": "…"`)
		}
		m["content"] = *e.Content
	case "key_value":
		if e.Values == nil || e.Content != nil || e.Rows != nil {
			return wrong(`"values": […]`)
		}
		pairs, _ := m["pairs"].([]any)
		if len(e.Values) != len(pairs) {
			return fault.Field(at+".values", "length", "values has %d items; the block has %d pairs: send one value per pair, in order", len(e.Values), len(pairs))
		}
		for j, raw := range e.Values {
			pair, ok := pairs[j].(map[string]any)
			if !ok {
				continue // a malformed pair (warned at publish) has no value to edit
			}
			v, err := scalarEdit(fmt.Sprintf("%s.values[%d]", at, j), raw, pair["value"], false)
			if err != nil {
				return err
			}
			if v != nil || pair["value"] != nil {
				pair["value"] = v
			}
		}
	case "table":
		if e.Rows == nil || e.Content != nil || e.Values != nil {
			return wrong(`"rows": [{…}]`)
		}
		rows, _ := m["rows"].([]any)
		if len(e.Rows) != len(rows) {
			return fault.Field(at+".rows", "length", "rows has %d items; the table has %d rows: send one per row, in order (rows are not added or removed)", len(e.Rows), len(rows))
		}
		cols := map[string]bool{}
		for _, c := range asList(m["columns"]) {
			if k, ok := asMap(c)["key"].(string); ok {
				cols[k] = true
			}
		}
		for r, cells := range e.Rows {
			row, ok := rows[r].(map[string]any)
			if !ok {
				row = map[string]any{}
				rows[r] = row
			}
			keys := make([]string, 0, len(cells))
			for k := range cells {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := fmt.Sprintf("%s.rows[%d].%s", at, r, k)
				if !cols[k] {
					return fault.Field(p, "unknown_column", "the table has no column %q; edit the cells of its columns only", k)
				}
				v, err := scalarEdit(p, cells[k], row[k], true)
				if err != nil {
					return err
				}
				if v != nil || row[k] != nil {
					row[k] = v
				}
			}
		}
	}
	return nil
}

// scalarEdit reads an edited value: a string, number or boolean (null too when
// nullable). A string where the agent wrote a number or a boolean becomes one when
// it reads as one; an empty string where the agent wrote nothing stays nothing.
func scalarEdit(at string, raw json.RawMessage, was any, nullable bool) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fault.Field(at, "type", "%s must be a string, number or boolean", at)
	}
	switch x := v.(type) {
	case nil:
		if nullable {
			return nil, nil
		}
	case json.Number, bool:
		return x, nil
	case string:
		s := strings.TrimSpace(x)
		if x == "" && was == nil {
			return nil, nil // an empty field where the agent gave no value: still none
		}
		switch was.(type) {
		case json.Number:
			if _, err := strconv.ParseFloat(s, 64); err == nil && json.Valid([]byte(s)) {
				return json.Number(s), nil
			}
		case bool:
			if s == "true" || s == "false" {
				return s == "true", nil
			}
		}
		return x, nil
	}
	return nil, fault.Field(at, "type", "%s must be a string, number or boolean", at)
}

// editText is the text a block's diff compares: a text block's content; a
// key_value's pairs as "key: value" lines; a table's rows as "| cell | cell |"
// lines under a line of column keys. A newline inside a value is written \n, so
// one value stays one line.
func editText(t string, m map[string]any) string {
	var sb strings.Builder
	switch t {
	case "text", "rich_text", "code":
		s, _ := m["content"].(string)
		return s
	case "key_value":
		for _, p := range asList(m["pairs"]) {
			pm := asMap(p)
			fmt.Fprintf(&sb, "%s: %s\n", cellText(pm["key"]), cellText(pm["value"]))
		}
	case "table":
		var keys []string
		for _, c := range asList(m["columns"]) {
			if k, ok := asMap(c)["key"].(string); ok {
				keys = append(keys, k)
			}
		}
		sb.WriteString("|")
		for _, k := range keys {
			sb.WriteString(" " + oneLine(k) + " |")
		}
		sb.WriteString("\n")
		for _, r := range asList(m["rows"]) {
			row := asMap(r)
			sb.WriteString("|")
			for _, k := range keys {
				sb.WriteString(" " + cellText(row[k]) + " |")
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return oneLine(x)
	case json.Number:
		return string(x)
	}
	b, _ := json.Marshal(v)
	return oneLine(string(b))
}

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
}

func asList(v any) []any {
	a, _ := v.([]any)
	return a
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// decodeData reads a block's data object, numbers kept exactly as written.
func decodeData(raw json.RawMessage) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

// encodeData writes data compactly, keys sorted, without HTML escaping.
func encodeData(m map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// EditedBlocks is the page's blocks as its decision left them: each block the
// decision edited carries its edited data. edits maps the block ids edited to
// their edit; nil when the decision edited nothing.
func EditedBlocks(p *Page) (list []blocks.Block, edits map[string]Edit) {
	e := p.LastExecution()
	if p.Status != Completed || e == nil || len(e.Edits) == 0 {
		return p.Blocks, nil
	}
	edits = make(map[string]Edit, len(e.Edits))
	for _, ed := range e.Edits {
		edits[ed.BlockID] = ed
	}
	list = make([]blocks.Block, len(p.Blocks))
	for i, b := range p.Blocks {
		if ed, ok := edits[b.ID]; ok {
			b.Data = ed.Data
		}
		list[i] = b
	}
	return list, edits
}
