package protocols

import (
	"encoding/json"
	"math"
	"strconv"

	"folio/actors/model/blocks"
)

// node is a block under construction. Container blocks keep their children as
// nodes until finishNodes runs, so that the form can be placed and empty
// containers pruned before anything is encoded.
type node struct {
	typ     string
	data    map[string]any // the block's own fields (title, content, ...)
	blocks  []*node        // group children
	columns []*column      // layout columns
	tabs    []*tabPane     // tab panes
	marker  bool           // where the first form input was met; replaced by the form
}

type column struct {
	weight float64 // > 0; widths are weights as fractions of the total
	blocks []*node
}

type tabPane struct {
	label  string
	blocks []*node
}

func leaf(typ string, data map[string]any) *node {
	if data == nil {
		data = map[string]any{}
	}
	return &node{typ: typ, data: data}
}

// finishNodes places the form (if any), prunes empty containers and encodes
// the result as top-level blocks.
func finishNodes(list []*node, form *node) []blocks.Block {
	if form != nil {
		var st placeState
		list, st = placeForm(list, form, false)
		if st != placed {
			list = append(list, form)
		}
	}
	list = prune(list, 0)
	out := make([]blocks.Block, 0, len(list))
	for _, n := range list {
		out = append(out, blocks.Block{Type: n.typ, Data: encodeData(n)})
	}
	return out
}

type placeState int

const (
	notFound placeState = iota
	placed
	hoist // the marker sat in a layout column and was removed; place after the layout
)

// placeForm replaces the form marker by the form. A form never goes inside a
// layout column: it goes to the nearest page, group or tab list that holds
// the marker, right after the layout that contained it.
func placeForm(list []*node, form *node, inLayout bool) ([]*node, placeState) {
	for i, n := range list {
		if n.marker {
			if inLayout {
				return append(list[:i:i], list[i+1:]...), hoist
			}
			list[i] = form
			return list, placed
		}
		switch n.typ {
		case "group":
			var st placeState
			if n.blocks, st = placeForm(n.blocks, form, false); st != notFound {
				return list, placed
			}
		case "tab":
			for _, p := range n.tabs {
				var st placeState
				if p.blocks, st = placeForm(p.blocks, form, false); st != notFound {
					return list, placed
				}
			}
		case "layout":
			for _, c := range n.columns {
				var st placeState
				c.blocks, st = placeForm(c.blocks, form, true)
				switch {
				case st == placed:
					return list, placed
				case st == hoist && inLayout:
					return list, hoist
				case st == hoist:
					out := make([]*node, 0, len(list)+1)
					out = append(append(append(out, list[:i+1]...), form), list[i+1:]...)
					return out, placed
				}
			}
		}
	}
	return list, notFound
}

// prune drops markers, empty groups and layouts, layout columns without
// blocks, and inlines single-column layouts. Recursion follows the node tree,
// whose depth the renderer bounds.
func prune(list []*node, depth int) []*node {
	out := make([]*node, 0, len(list))
	for _, n := range list {
		if n.marker {
			continue
		}
		switch n.typ {
		case "group":
			n.blocks = prune(n.blocks, depth+1)
			if len(n.blocks) == 0 {
				continue
			}
		case "tab":
			for _, p := range n.tabs {
				p.blocks = prune(p.blocks, depth+1)
			}
			if len(n.tabs) == 0 {
				continue
			}
		case "layout":
			cols := n.columns[:0]
			for _, c := range n.columns {
				if c.blocks = prune(c.blocks, depth+1); len(c.blocks) > 0 {
					cols = append(cols, c)
				}
			}
			n.columns = cols
			switch len(cols) {
			case 0:
				continue
			case 1:
				out = append(out, cols[0].blocks...)
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// encodeData builds the block's data object, nesting child blocks as
// {type, data} objects.
func encodeData(n *node) json.RawMessage {
	b, err := json.Marshal(dataOf(n))
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func dataOf(n *node) map[string]any {
	d := make(map[string]any, len(n.data)+1)
	for k, v := range n.data {
		d[k] = v
	}
	switch n.typ {
	case "group":
		d["blocks"] = nested(n.blocks)
	case "tab":
		tabs := make([]any, 0, len(n.tabs))
		for _, p := range n.tabs {
			tabs = append(tabs, map[string]any{"label": p.label, "blocks": nested(p.blocks)})
		}
		d["tabs"] = tabs
	case "layout":
		widths := columnWidths(n.columns)
		cols := make([]any, 0, len(n.columns))
		for i, c := range n.columns {
			cols = append(cols, map[string]any{"width": widths[i], "blocks": nested(c.blocks)})
		}
		d["columns"] = cols
	}
	return d
}

func nested(list []*node) []any {
	out := make([]any, 0, len(list))
	for _, n := range list {
		out = append(out, map[string]any{"type": n.typ, "data": dataOf(n)})
	}
	return out
}

// columnWidths expresses each weight as a fraction of the total ("2/3"),
// reduced; weights that are not small decimals fall back to percentages.
func columnWidths(cols []*column) []string {
	out := make([]string, len(cols))
	for scale := 1.0; scale <= 1000; scale *= 10 {
		ints := make([]int64, len(cols))
		var total int64
		ok := true
		for i, c := range cols {
			v := c.weight * scale
			if v > 1e9 || math.Abs(v-math.Round(v)) > 1e-9 {
				ok = false
				break
			}
			ints[i] = int64(math.Round(v))
			total += ints[i]
		}
		if !ok || total <= 0 {
			continue
		}
		for i, n := range ints {
			g := gcd(n, total)
			out[i] = strconv.FormatInt(n/g, 10) + "/" + strconv.FormatInt(total/g, 10)
		}
		return out
	}
	var total float64
	for _, c := range cols {
		total += c.weight
	}
	for i, c := range cols {
		out[i] = strconv.FormatFloat(100*c.weight/total, 'f', 1, 64) + "%"
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}
