package web

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"folio/actors/page"
	"folio/transport/web/render"
)

// editsOf reads the editor's fields of a decision posted without script
// (render/editor.go names them) into the edits execute-action takes. Every
// editable block's fields are posted whether or not the person changed them; the
// page actor drops an edit that leaves its block as the agent wrote it.
func editsOf(p *page.Page, form url.Values) []page.EditRequest {
	type kv struct {
		values map[int]string
		cells  map[int]map[int]string
	}
	content := map[string]string{}
	byBlock := map[string]*kv{}
	var order []string
	get := func(id string) *kv {
		k := byBlock[id]
		if k == nil {
			k = &kv{values: map[int]string{}, cells: map[int]map[int]string{}}
			byBlock[id] = k
			order = append(order, id)
		}
		return k
	}
	for name, vs := range form {
		if len(vs) == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(name, render.EditFieldContent):
			id := strings.TrimPrefix(name, render.EditFieldContent)
			if _, ok := content[id]; !ok {
				order = append(order, id)
			}
			content[id] = normalizeNewlines(vs[0])
		case strings.HasPrefix(name, render.EditFieldValue):
			i, id, ok := cutIndex(strings.TrimPrefix(name, render.EditFieldValue))
			if ok {
				get(id).values[i] = vs[0]
			}
		case strings.HasPrefix(name, render.EditFieldCell):
			r, rest, ok := cutIndex(strings.TrimPrefix(name, render.EditFieldCell))
			if !ok {
				continue
			}
			c, id, ok := cutIndex(rest)
			if ok {
				k := get(id)
				if k.cells[r] == nil {
					k.cells[r] = map[int]string{}
				}
				k.cells[r][c] = vs[0]
			}
		}
	}
	pos := make(map[string]int, len(p.Blocks))
	for i, b := range p.Blocks {
		pos[b.ID] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return pos[order[i]] < pos[order[j]] }) // in page order
	var out []page.EditRequest
	for _, id := range order {
		if s, ok := content[id]; ok {
			out = append(out, page.EditRequest{BlockID: id, Content: &s})
			continue
		}
		k := byBlock[id]
		if k == nil {
			continue
		}
		if e, ok := structuredEdit(p, id, k.values, k.cells); ok {
			out = append(out, e)
		}
	}
	return out
}

// structuredEdit is a key_value's values or a table's rows from the posted fields;
// a value or cell not posted keeps the agent's.
func structuredEdit(p *page.Page, id string, values map[int]string, cells map[int]map[int]string) (page.EditRequest, bool) {
	for _, b := range p.Blocks {
		if b.ID != id {
			continue
		}
		var d struct {
			Pairs   []map[string]json.RawMessage `json:"pairs"`
			Columns []struct {
				Key string `json:"key"`
			} `json:"columns"`
			Rows []map[string]json.RawMessage `json:"rows"`
		}
		if json.Unmarshal(b.Data, &d) != nil {
			return page.EditRequest{}, false
		}
		str := func(s string) json.RawMessage { raw, _ := json.Marshal(s); return raw }
		switch b.Type {
		case "key_value":
			e := page.EditRequest{BlockID: id, Values: make([]json.RawMessage, len(d.Pairs))}
			for i, pair := range d.Pairs {
				if s, ok := values[i]; ok {
					e.Values[i] = str(s)
				} else if v := pair["value"]; v != nil {
					e.Values[i] = v
				} else {
					e.Values[i] = str("")
				}
			}
			return e, true
		case "table":
			e := page.EditRequest{BlockID: id, Rows: make([]map[string]json.RawMessage, len(d.Rows))}
			for r := range d.Rows {
				e.Rows[r] = map[string]json.RawMessage{}
				for c, col := range d.Columns {
					if s, ok := cells[r][c]; ok && col.Key != "" {
						e.Rows[r][col.Key] = str(s)
					}
				}
			}
			return e, true
		}
	}
	return page.EditRequest{}, false
}

// cutIndex reads "<n>.<rest>".
func cutIndex(s string) (int, string, bool) {
	n, rest, ok := strings.Cut(s, ".")
	if !ok {
		return 0, "", false
	}
	i, err := strconv.Atoi(n)
	return i, rest, err == nil && i >= 0
}

// normalizeNewlines turns a textarea's CRLF line ends (as browsers post them) into LF.
func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
