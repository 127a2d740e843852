package render

// The board blocks: comparison (options side by side, the recommended one marked
// in words and by an accent border), kanban (columns of cards with counts) and tree
// (nested lists that fold). The rule they keep: output proportional to the input
// and bounded: lists are cut at maxItems, the tree at treeDepth levels and
// maxItems nodes in all, each cut said in a note.

import (
	"encoding/json"
	"html/template"
	"strings"
)

func init() {
	register("comparison", viewComparison)
	register("kanban", viewKanban)
	register("tree", viewTree)
}

// ---- comparison ----

type comparisonView struct {
	Level int // of each option's label
	Items []comparisonItem
	More  int
}

type comparisonItem struct {
	Label     string
	Highlight bool
	Rows      []comparisonRow
}

type comparisonRow struct {
	Key     string
	Value   string
	Missing bool
	Bool    string // "yes" or "no" when the value is a boolean
}

func viewComparison(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title Scalar `json:"title"`
		Items []struct {
			Label     Scalar `json:"label"`
			Highlight bool   `json:"highlight"`
			Fields    []struct {
				Key   Scalar `json:"key"`
				Value Scalar `json:"value"`
			} `json:"fields"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := comparisonView{Level: stSubLevel(c, d.Title)}
	items := d.Items
	if len(items) > maxItems {
		v.More = len(items) - maxItems
		items = items[:maxItems]
	}
	// Every card lists the union of the keys in first-seen order, so the cards
	// read row by row; a key an option lacks shows a dash. The union is bounded.
	var keys []string
	seen := map[string]bool{}
	values := make([]map[string]string, len(items))
	for i, it := range items {
		values[i] = map[string]string{}
		fields := it.Fields
		if len(fields) > maxItems {
			fields = fields[:maxItems]
		}
		for _, f := range fields {
			k := strings.TrimSpace(f.Key.String())
			if !seen[k] && len(keys) < maxItems {
				seen[k] = true
				keys = append(keys, k)
			}
			if _, dup := values[i][k]; !dup {
				values[i][k] = f.Value.String()
			}
		}
	}
	for i, it := range items {
		ci := comparisonItem{Label: firstText(it.Label.String(), "Option"), Highlight: it.Highlight}
		for _, k := range keys {
			val, ok := values[i][k]
			r := comparisonRow{Key: firstText(k, "—"), Value: val, Missing: !ok || strings.TrimSpace(val) == ""}
			switch val {
			case "true":
				r.Bool = "yes"
			case "false":
				r.Bool = "no"
			}
			ci.Rows = append(ci.Rows, r)
		}
		v.Items = append(v.Items, ci)
	}
	return v, nil
}

// ---- kanban ----

type kanbanView struct {
	Label   string
	Level   int // of each column's label
	Columns []kanbanColumn
	More    int
}

type kanbanColumn struct {
	Label string
	Count int
	Cards []kanbanCard
	More  int
}

type kanbanCard struct {
	Title, Description, Badge string
}

func viewKanban(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title   Scalar `json:"title"`
		Columns []struct {
			Label Scalar `json:"label"`
			Cards []struct {
				Title       Scalar `json:"title"`
				Description Scalar `json:"description"`
				Badge       Scalar `json:"badge"`
			} `json:"cards"`
		} `json:"columns"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := kanbanView{Label: firstText(d.Title.String(), "Board") + ", columns", Level: stSubLevel(c, d.Title)}
	cols := d.Columns
	if len(cols) > maxItems {
		v.More = len(cols) - maxItems
		cols = cols[:maxItems]
	}
	left := maxItems // cards drawn over the whole board
	for _, col := range cols {
		kc := kanbanColumn{Label: firstText(col.Label.String(), "Untitled"), Count: len(col.Cards)}
		cards := col.Cards
		if len(cards) > left {
			cards = cards[:left]
		}
		left -= len(cards)
		kc.More = len(col.Cards) - len(cards)
		for _, k := range cards {
			kc.Cards = append(kc.Cards, kanbanCard{Title: firstText(k.Title.String(), "Untitled"),
				Description: strings.TrimSpace(k.Description.String()), Badge: strings.TrimSpace(k.Badge.String())})
		}
		v.Columns = append(v.Columns, kc)
	}
	return v, nil
}

// ---- tree ----

// treeDepth is the deepest tree level drawn; deeper children are counted in a note.
const treeDepth = 32

type treeData struct {
	Label    Scalar     `json:"label"`
	Icon     string     `json:"icon"`
	Children []treeData `json:"children"`
}

type treeView struct {
	Nodes []*treeNode
	More  int // top-level nodes not drawn (the tree holds more than MaxItems nodes)
}

type treeNode struct {
	Label    string
	Icon     template.HTML
	Children []*treeNode
	Cut      int  // children not drawn: over the node budget, or too deep
	Deep     bool // the children were cut for lying deeper than treeDepth
}

func viewTree(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Nodes []treeData `json:"nodes"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	left := maxItems
	var v treeView
	v.Nodes, v.More = treeNodes(d.Nodes, 1, &left)
	return v, nil
}

// treeNodes builds one level of the tree and returns how many of list it left
// out. Each drawn node costs one of *left, so the walk visits at most maxItems
// nodes and treeDepth levels whatever the shape of the data.
func treeNodes(list []treeData, depth int, left *int) (out []*treeNode, cut int) {
	for i := range list {
		if *left <= 0 {
			return out, len(list) - i
		}
		*left--
		n := &treeNode{Label: firstText(list[i].Label.String(), "(unnamed)"), Icon: Icon(list[i].Icon)}
		if kids := list[i].Children; len(kids) > 0 {
			if depth >= treeDepth {
				n.Cut, n.Deep = len(kids), true
			} else {
				n.Children, n.Cut = treeNodes(kids, depth+1, left)
			}
		}
		out = append(out, n)
	}
	return out, 0
}
