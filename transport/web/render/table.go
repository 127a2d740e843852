package render

// The tabular blocks: table (a real <table> with scoped headers, optional sorting
// and "show all" added by js/text.js, and all rows present without script) and
// key_value (labelled values as a definition list, in a column, a row or a grid of
// cards, with status badges that say their status in words). Cell text reaches the
// page through html/template only; rows are cut at maxItems, columns at
// tableMaxCols, and rows times columns at tableMaxCells.

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// tableMaxCols and tableMaxCells bound a table's output: rows are objects, so a
// short row can stand for many empty cells, and columns times rows must stay
// proportional to what the agent sent.
const (
	tableMaxCols  = 100
	tableMaxCells = 50_000
)

func init() {
	register("table", viewTable)
	register("key_value", viewKeyValue)
}

type tableView struct {
	LabelledBy string // id of the box's heading, when the block has a title
	Sortable   bool
	MaxRows    int // rows shown before "Show all" (0: all)
	Total      int // rows drawn
	Columns    []tableColumn
	Rows       [][]tableCell
	More       int // rows not drawn (over MaxItems)
	MoreCols   int
	Footer     string
	HasWidths  bool
}

type tableColumn struct {
	Label string
	Width string // w-* class for its <col>
	Align string // "", "center" or "right"
}

type tableCell struct {
	Text string
	Num  string // the value as a number for sorting, when it is one
}

type tableColumnData struct {
	Key   Scalar `json:"key"`
	Label Scalar `json:"label"`
	Width Scalar `json:"width"`
	Align Scalar `json:"align"`
}

func viewTable(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title    Scalar            `json:"title"`
		Columns  []tableColumnData `json:"columns"`
		Rows     []json.RawMessage `json:"rows"`
		Sortable txFlag            `json:"sortable"`
		MaxRows  Number            `json:"max_rows"`
		Footer   Scalar            `json:"footer"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := tableView{Sortable: bool(d.Sortable), Footer: strings.TrimSpace(d.Footer.String())}
	if strings.TrimSpace(d.Title.String()) != "" {
		v.LabelledBy = c.DOMID() + "-h"
	}
	cols := d.Columns
	if len(cols) > tableMaxCols {
		v.MoreCols = len(cols) - tableMaxCols
		cols = cols[:tableMaxCols]
	}
	rows := d.Rows
	maxRows := maxItems
	if len(cols) > 0 {
		maxRows = min(maxItems, tableMaxCells/len(cols))
	}
	if len(rows) > maxRows {
		v.More = len(rows) - maxRows
		rows = rows[:maxRows]
	}
	// Rows are objects keyed by column key; an agent that sent arrays gets its
	// cells by position.
	objs := make([]map[string]Scalar, len(rows))
	arrs := make([][]Scalar, len(rows))
	for i, r := range rows {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '[' {
			_ = json.Unmarshal(r, &arrs[i])
		} else if len(r) > 0 && r[0] == '{' {
			_ = decode(r, &objs[i])
		}
	}
	if len(cols) == 0 {
		cols = tableGuessColumns(objs, arrs)
		if n := len(cols); n > 0 && len(rows) > tableMaxCells/n {
			v.More += len(rows) - tableMaxCells/n
			rows = rows[:tableMaxCells/n]
		}
	}
	nums, texts := make([]int, len(cols)), make([]int, len(cols)) // per column
	v.Rows = make([][]tableCell, len(rows))
	for i := range rows {
		cells := make([]tableCell, len(cols))
		for j, col := range cols {
			var val Scalar
			if objs[i] != nil {
				key := col.Key.String()
				if key == "" {
					key = col.Label.String()
				}
				val = objs[i][key]
			} else if j < len(arrs[i]) {
				val = arrs[i][j]
			}
			cells[j] = tableCell{Text: txDisplay(val)}
			if f, ok := tableNumber(val.String()); ok {
				cells[j].Num = strconv.FormatFloat(f, 'g', -1, 64)
				nums[j]++
			} else if strings.TrimSpace(val.String()) != "" {
				texts[j]++
			}
		}
		v.Rows[i] = cells
	}
	for j, col := range cols {
		tc := tableColumn{Label: strings.TrimSpace(col.Label.String()), Width: widthClass(col.Width)}
		if tc.Label == "" {
			tc.Label = humanize(col.Key.String())
		}
		switch a := strings.ToLower(strings.TrimSpace(col.Align.String())); a {
		case "center", "right":
			tc.Align = a
		case "left":
		default:
			// A column of numbers reads best right-aligned, as in a spreadsheet.
			if nums[j] > 0 && texts[j] == 0 {
				tc.Align = "right"
			}
		}
		v.HasWidths = v.HasWidths || tc.Width != ""
		v.Columns = append(v.Columns, tc)
	}
	v.Total = len(v.Rows)
	v.Sortable = v.Sortable && v.Total > 1
	if d.MaxRows.OK && d.MaxRows.V >= 1 && d.MaxRows.V < float64(v.Total) {
		v.MaxRows = int(d.MaxRows.V)
	}
	return v, nil
}

// tableGuessColumns are the columns of a table sent without any: the keys of its
// object rows, sorted, or positions for array rows.
func tableGuessColumns(objs []map[string]Scalar, arrs [][]Scalar) []tableColumnData {
	seen := map[string]bool{}
	var keys []string
	width := 0
	for i := range objs {
		for k := range objs[i] {
			if !seen[k] && len(keys) < tableMaxCols {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		width = max(width, min(len(arrs[i]), tableMaxCols))
	}
	sort.Strings(keys)
	var out []tableColumnData
	for _, k := range keys {
		out = append(out, tableColumnData{Key: Scalar(k)})
	}
	for j := len(out); j < width; j++ {
		out = append(out, tableColumnData{Key: Scalar(strconv.Itoa(j + 1)), Label: Scalar("Column " + strconv.Itoa(j+1))})
	}
	return out
}

// tableNumber reads a cell as a number for sorting: 1234.5, "1,234.5", "12%",
// "-3"; not "N/A" or "v2".
func tableNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "%")
	s = strings.ReplaceAll(s, ",", "")
	if s == "" || len(s) > 40 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// key_value

type kvView struct {
	Layout string // vertical, horizontal or grid
	Pairs  []kvPair
	More   int
}

type kvPair struct {
	Key   string
	Value string
	Style string // "", "highlight" or "muted"
	Badge string // "", info, warning, error, success
	Word  string // the badge's status in words
}

var kvBadgeWords = map[string]string{"info": "info", "warning": "warning", "error": "error", "success": "success"}

// A badge shows the value inside a pill coloured by status, with the status's
// icon and, for screen readers, its name in words; a badge without a value shows
// the status word itself.
func viewKeyValue(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Layout Scalar `json:"layout"`
		Pairs  []struct {
			Key   Scalar `json:"key"`
			Label Scalar `json:"label"`
			Value Scalar `json:"value"`
			Style Scalar `json:"style"`
			Badge Scalar `json:"badge"`
		} `json:"pairs"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := kvView{Layout: "vertical"}
	switch l := strings.ToLower(strings.TrimSpace(d.Layout.String())); l {
	case "horizontal", "grid":
		v.Layout = l
	}
	pairs := d.Pairs
	if len(pairs) > maxItems {
		v.More = len(pairs) - maxItems
		pairs = pairs[:maxItems]
	}
	for _, p := range pairs {
		kp := kvPair{Key: strings.TrimSpace(p.Key.String()), Value: txDisplay(p.Value)}
		if kp.Key == "" {
			kp.Key = strings.TrimSpace(p.Label.String())
		}
		switch s := strings.ToLower(strings.TrimSpace(p.Style.String())); s {
		case "highlight", "muted":
			kp.Style = s
		}
		b := strings.ToLower(strings.TrimSpace(p.Badge.String()))
		switch b {
		case "warn":
			b = "warning"
		case "danger":
			b = "error"
		}
		if w := kvBadgeWords[b]; w != "" {
			kp.Badge, kp.Word = b, w
		}
		v.Pairs = append(v.Pairs, kp)
	}
	return v, nil
}
