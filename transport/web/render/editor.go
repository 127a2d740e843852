package render

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"folio/actors/model/blocks"
)

// The reviewer's editor and the edited marker (actors/page/edits.go).
//
// While the page takes decisions, a top-level block the agent marked editable
// carries, under its content, a disclosure "Edit before approving" holding plain
// fields of the decision form: a textarea for a text, rich_text or code block's
// content, one input per key_value value, one per table cell. They are posted with
// the decision (form attribute), so editing works without script; the names say
// which block and which value each field edits (EditField*). Once a decision
// edited a block, the block shows the edited data with an "Edited by …" marker,
// the diff and the agent's original in a disclosure.

// EditMark is a block the page's decision edited: who, the unified diff, and the
// block as the agent wrote it.
type EditMark struct {
	By       string
	Diff     string
	Original blocks.Block
}

// The names of the editor's fields in the decision form: the block id comes last,
// as it may hold any character.
const (
	EditFieldContent = "edit.content." // + block id: the whole content
	EditFieldValue   = "edit.value."   // + pair index + "." + block id
	EditFieldCell    = "edit.cell."    // + row index + "." + column index + "." + block id
	editSummary      = "Edit before approving"
	editHelp         = "Your version is sent with your approval; the agent receives it and what you changed."
	editRowsMax      = 16
)

type editorView struct {
	DOMID   string
	BlockID string
	Kind    string // content, values, rows
	FormID  string
	Title   string
	Summary string
	Help    string
	// content
	Name    string
	Content string
	Rows    int
	Code    bool
	// values
	Pairs []editInput
	// rows
	Columns []string
	Cells   [][]editInput
}

type editInput struct {
	ID, Name, Label, Value, Col string
	I                           int
}

// editor is the editing fields of an editable top-level block, "" when the page
// takes no decision now or the block cannot be edited.
func editor(c *Ctx, b blocks.Block) template.HTML {
	if !b.Editable || !c.Interactive() || b.ID == "" || !blocks.EditableType(b.Type) {
		return ""
	}
	title := titleOf(b.Data)
	if title == "" {
		title = "this block"
	}
	v := editorView{DOMID: c.ID("edit"), BlockID: b.ID, FormID: c.FormID(), Title: title, Summary: editSummary, Help: editHelp}
	switch b.Type {
	case "text", "rich_text", "code":
		var d struct {
			Content string `json:"content"`
		}
		if decode(b.Data, &d) != nil {
			return ""
		}
		v.Kind, v.Name, v.Content, v.Code = "content", EditFieldContent+b.ID, d.Content, b.Type == "code"
		v.Rows = min(max(strings.Count(d.Content, "\n")+2, 4), editRowsMax)
	case "key_value":
		var d struct {
			Pairs []struct {
				Key   Scalar `json:"key"`
				Value Scalar `json:"value"`
			} `json:"pairs"`
		}
		if decode(b.Data, &d) != nil || len(d.Pairs) == 0 || len(d.Pairs) > blocks.MaxEditableCells {
			return ""
		}
		v.Kind = "values"
		for i, p := range d.Pairs {
			v.Pairs = append(v.Pairs, editInput{ID: c.ID(fmt.Sprintf("edit-%d", i)), Name: fmt.Sprintf("%s%d.%s", EditFieldValue, i, b.ID),
				Label: p.Key.String(), Value: p.Value.String(), I: i})
		}
	case "table":
		var d struct {
			Columns []struct {
				Key   string `json:"key"`
				Label Scalar `json:"label"`
			} `json:"columns"`
			Rows []map[string]Scalar `json:"rows"`
		}
		if decode(b.Data, &d) != nil || len(d.Columns) == 0 || len(d.Rows) == 0 || len(d.Rows)*len(d.Columns) > blocks.MaxEditableCells {
			return ""
		}
		v.Kind = "rows"
		for _, col := range d.Columns {
			l := col.Label.String()
			if l == "" {
				l = col.Key
			}
			v.Columns = append(v.Columns, l)
		}
		for r, row := range d.Rows {
			var cells []editInput
			for j, col := range d.Columns {
				cells = append(cells, editInput{ID: c.ID(fmt.Sprintf("edit-%d-%d", r, j)), Name: fmt.Sprintf("%s%d.%d.%s", EditFieldCell, r, j, b.ID),
					Label: fmt.Sprintf("Row %d, %s", r+1, v.Columns[j]), Value: row[col.Key].String(), Col: col.Key, I: r})
			}
			v.Cells = append(v.Cells, cells)
		}
	default:
		return ""
	}
	var sb strings.Builder
	if templates().ExecuteTemplate(&sb, "editor", v) != nil {
		return ""
	}
	return template.HTML(sb.String()) // #nosec: an escaped template
}

type editedView struct {
	DOMID    string
	By       string
	Diff     string
	Original template.HTML
}

// edited is the marker of a block the decision edited: who, and in a disclosure
// the diff and the agent's original, drawn as a nested block.
func edited(c *Ctx, b blocks.Block) template.HTML {
	m, ok := c.opt.Edited[b.ID]
	if !ok || c.depth != 1 {
		return ""
	}
	orig := m.Original
	orig.Editable = false
	v := editedView{DOMID: c.ID("orig"), By: m.By, Diff: m.Diff, Original: c.Nested([]blocks.Block{orig}, "orig")}
	var sb strings.Builder
	if templates().ExecuteTemplate(&sb, "edited", v) != nil {
		return ""
	}
	return template.HTML(sb.String()) // #nosec: an escaped template
}

// editCacheKey is what a block's editor or edited marker adds to its cache key.
func editCacheKey(c *Ctx, b blocks.Block) string {
	if m, ok := c.opt.Edited[b.ID]; ok {
		raw, _ := json.Marshal(m)
		return "edited:" + string(raw)
	}
	if b.Editable {
		return "editable"
	}
	return ""
}
