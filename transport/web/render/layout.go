package render

// The container blocks: layout (columns side by side), group (a titled, optionally
// collapsible box) and tab (panels behind keyboard-operable tabs). They only arrange
// nested blocks, which the core draws one level deeper through Ctx.Nested, so the
// core's depth and block budgets bound them; their own lists are cut at maxItems.

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strings"

	"folio/actors/model/blocks"
)

func init() {
	register("layout", viewLayout)
	register("group", viewGroup)
	register("tab", viewTab)
	addFuncs(template.FuncMap{"stHeading": stHeading})
}

// stSubLevel is the heading level for the parts of a block (tab panels, option
// cards, board columns): one below the block's title, or the title's own level
// when the block has no title, so heading levels never skip one.
func stSubLevel(c *Ctx, title Scalar) int {
	if strings.TrimSpace(title.String()) == "" {
		return c.Level()
	}
	return min(c.Level()+1, 6)
}

// stHeading is a heading of a given level (2..6) and class whose text is escaped:
// <hN class="…">text</hN>. The level is a number the view computed, never agent text.
func stHeading(level int, class, text string) template.HTML {
	l := fmt.Sprint(min(max(level, 2), 6))
	return template.HTML("<h" + l + ` class="` + template.HTMLEscapeString(class) + `">` +
		template.HTMLEscapeString(text) + "</h" + l + ">") // #nosec: class and text escaped
}

type layoutView struct {
	Columns []layoutColumn
	More    int
}

type layoutColumn struct {
	Grow int // share of the row in twentieths (class lay-g<Grow>)
	Body template.HTML
}

func viewLayout(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Columns []struct {
			Width  Scalar         `json:"width"`
			Blocks []blocks.Block `json:"blocks"`
		} `json:"columns"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	cols := d.Columns
	v := layoutView{}
	if len(cols) > maxItems {
		v.More = len(cols) - maxItems
		cols = cols[:maxItems]
	}
	widths := make([]string, len(cols))
	for i, col := range cols {
		widths[i] = col.Width.String()
	}
	grow := columnShares(widths)
	for i, col := range cols {
		v.Columns = append(v.Columns, layoutColumn{Grow: grow[i], Body: c.Nested(col.Blocks, fmt.Sprintf("c%d", i))})
	}
	return v, nil
}

// columnShares turns the agent's column widths ("1/2", "40%", 320) into flex-grow
// shares in twentieths (1..20). Columns without a usable width share what the
// others leave, or get an equal share when nothing is left.
func columnShares(widths []string) []int {
	out := make([]int, len(widths))
	used, unset := 0, 0
	for i, w := range widths {
		f, ok := fraction(w)
		if !ok || math.IsNaN(f) {
			unset++
			continue
		}
		out[i] = min(max(int(math.Round(f*20)), 1), 20)
		used += out[i]
	}
	if unset == 0 {
		return out
	}
	share := 20 / max(len(widths), 1)
	if left := 20 - used; left >= unset {
		share = left / unset
	}
	for i := range out {
		if out[i] == 0 {
			out[i] = min(max(share, 1), 20)
		}
	}
	return out
}

type groupView struct {
	Collapsible bool
	Open        bool
	Summary     string
	Level       int
	Body        template.HTML
}

func viewGroup(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title            Scalar         `json:"title"`
		Collapsible      bool           `json:"collapsible"`
		DefaultCollapsed bool           `json:"default_collapsed"`
		Blocks           []blocks.Block `json:"blocks"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := groupView{Collapsible: d.Collapsible, Open: !d.DefaultCollapsed, Level: c.Level()}
	if d.Collapsible {
		c.OwnTitle()
		v.Summary = strings.TrimSpace(d.Title.String())
		if v.Summary == "" {
			v.Summary = "Details"
		}
	}
	v.Body = c.Nested(d.Blocks, "g")
	return v, nil
}

type tabView struct {
	ID    string
	Label string // the tab list's accessible name
	Level int
	Tabs  []labelTab
	More  int
}

func viewTab(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title Scalar `json:"title"`
		Tabs  []struct {
			Label  Scalar         `json:"label"`
			Blocks []blocks.Block `json:"blocks"`
		} `json:"tabs"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := tabView{ID: c.ID("tabs"), Label: strings.TrimSpace(d.Title.String()), Level: stSubLevel(c, d.Title)}
	if v.Label == "" {
		v.Label = "Sections"
	}
	tabs := d.Tabs
	if len(tabs) > maxItems {
		v.More = len(tabs) - maxItems
		tabs = tabs[:maxItems]
	}
	for i, t := range tabs {
		label := strings.TrimSpace(t.Label.String())
		if label == "" {
			label = fmt.Sprintf("Tab %d", i+1)
		}
		v.Tabs = append(v.Tabs, labelTab{ID: c.ID(fmt.Sprintf("t%d", i)), Label: label, Body: c.Nested(t.Blocks, fmt.Sprintf("t%d", i))})
	}
	return v, nil
}
