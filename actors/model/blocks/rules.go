package blocks

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Cross-field rules: what one member says about another. Each rule runs after
// the members were checked one by one, and stays silent about a member whose
// own shape is wrong (that already drew a warning), so one mistake gives one
// warning.

// keyList lists at most ten keys for a warning.
func keyList(keys []string) string {
	if len(keys) > 10 {
		return quoteAll(keys[:10]) + ", …"
	}
	return quoteAll(keys)
}

// calloutMessage keeps callouts readable by one name: text sent in the older
// member message moves to content, unless content is also set.
func calloutMessage(c *checker, p string, m map[string]any) {
	msg := m["message"]
	if msg == nil {
		return
	}
	if present(m, "content") {
		c.warn(join(p, "message"), "ignored because content is also set; send the callout text only in content")
		return
	}
	if s, ok := msg.(string); ok {
		m["content"] = s
		delete(m, "message")
		c.changed = true
		c.warn(join(p, "message"), "callout text belongs in content; it was moved there, send content instead of message")
	}
}

// checkTable: column keys are unique, rows use only column keys (one warning
// per stray key, at its first row), and a column whose cells are mostly numbers
// (at least two) holds no strings (one warning per column, at its first string).
func checkTable(c *checker, p string, m map[string]any) {
	var keys []string
	known := map[string]bool{}
	for i, col := range asArray(m["columns"]) {
		k, ok := asObject(col)["key"].(string)
		if !ok {
			continue
		}
		if known[k] {
			c.warn(join(index(join(p, "columns"), i), "key"), "duplicate column key %s; give each column its own key", quote(k))
			continue
		}
		known[k] = true
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return
	}
	rows, rp := asArray(m["rows"]), join(p, "rows")
	firstPath, more, order := map[string]string{}, map[string]int{}, []string(nil)
	for i, r := range rows {
		for _, k := range sortedKeys(asObject(r)) {
			if known[k] {
				continue
			}
			if _, seen := firstPath[k]; seen {
				more[k]++
				continue
			}
			firstPath[k] = join(index(rp, i), k)
			order = append(order, k)
		}
	}
	for _, k := range order {
		also := ""
		if more[k] > 0 {
			also = fmt.Sprintf(" (nor in %d more rows)", more[k])
		}
		c.warn(firstPath[k], "%s is not a column key%s; use one of %s, or add a column with this key", quote(k), also, keyList(keys))
	}
	// Column statistics in one pass over the cells, so the work is linear in
	// the size of the table whatever its shape.
	type column struct {
		nums, strs int
		first      string // path of the first string cell
		value      any
	}
	stats := map[string]*column{}
	for i, r := range rows {
		for k, v := range asObject(r) {
			if !known[k] {
				continue
			}
			st := stats[k]
			if st == nil {
				st = &column{}
				stats[k] = st
			}
			switch v.(type) {
			case json.Number:
				st.nums++
			case string:
				if st.strs == 0 {
					st.first, st.value = join(index(rp, i), k), v
				}
				st.strs++
			}
		}
	}
	for _, k := range keys {
		st := stats[k]
		if st == nil || st.nums < 2 || st.nums <= st.strs || st.strs == 0 {
			continue
		}
		also := ""
		if st.strs > 1 {
			also = fmt.Sprintf(", and %d more rows hold strings there", st.strs-1)
		}
		c.warn(st.first, "expected a number, got %s; send a JSON number (column %s holds numbers in %d other rows%s; null leaves a cell empty)", got(st.value), quote(k), st.nums, also)
	}
}

// checkCode: highlighted lines exist in content.
func checkCode(c *checker, p string, m map[string]any) {
	content, ok := m["content"].(string)
	if !ok {
		return
	}
	lines := strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1
	for i, v := range asArray(m["highlight_lines"]) {
		if n, ok := asNumber(v); ok && n > float64(lines) {
			c.warn(index(join(p, "highlight_lines"), i), "line %s is past the end of content (%d lines); send line numbers from 1 to %d", numText(v), lines, lines)
		}
	}
}

// checkChart: annotations only where drawn; non-scatter charts have labels,
// one value per label in each dataset, and plain numbers rather than points.
func checkChart(c *checker, p string, m map[string]any) {
	ct, _ := m["chart_type"].(string)
	if len(asArray(m["annotations"])) > 0 && (ct == "pie" || ct == "scatter" || ct == "radar") {
		c.warn(join(p, "annotations"), "annotations are drawn only on bar, line and area charts, not %s; remove them or change chart_type", quote(ct))
	}
	d := asObject(m["data"])
	if d == nil || ct == "scatter" {
		return
	}
	dp := join(p, "data")
	labels, hasLabels := d["labels"].([]any)
	if d["labels"] == nil {
		c.warn(join(dp, "labels"), "missing; send one label per value (only scatter charts go without labels)")
	}
	for i, ds := range asArray(d["datasets"]) {
		data, ok := asObject(ds)["data"].([]any)
		if !ok {
			continue
		}
		vp := join(index(join(dp, "datasets"), i), "data")
		if hasLabels && len(data) != len(labels) {
			c.warn(vp, "has %d values but there are %d labels; send one value per label", len(data), len(labels))
		}
		for j, v := range data {
			if isPoint(v) {
				c.warn(index(vp, j), "x/y points are drawn only by scatter charts; send one number per label")
				break
			}
		}
	}
}

// checkButtons: every button opens a url or runs an action.
func checkButtons(c *checker, p string, m map[string]any) {
	for i, it := range asArray(m["items"]) {
		o := asObject(it)
		if o != nil && blank(o["url"]) && blank(o["action_id"]) {
			c.warn(index(join(p, "items"), i), "has neither url nor action_id, so it does nothing; send a url to open or an action_id to run")
		}
	}
}

func blank(v any) bool {
	s, ok := v.(string)
	return v == nil || ok && strings.TrimSpace(s) == ""
}

// checkProgress: max is positive and value lies within 0..max.
func checkProgress(c *checker, p string, m map[string]any) {
	v, okV := asNumber(m["value"])
	mx, okM := asNumber(m["max"])
	switch {
	case okM && mx <= 0:
		c.warn(join(p, "max"), "must be greater than 0, got %s; send the value that means complete", numText(m["max"]))
	case okV && v < 0:
		c.warn(join(p, "value"), "%s is negative; send a value from 0 to max", numText(m["value"]))
	case okV && okM && v > mx:
		c.warn(join(p, "value"), "%s is greater than max %s; send a value from 0 to max, or raise max", numText(m["value"]), numText(m["max"]))
	}
}

// checkGauge: max is positive and value does not exceed it.
func checkGauge(c *checker, p string, m map[string]any) {
	v, okV := asNumber(m["value"])
	mx, okM := asNumber(m["max"])
	switch {
	case okM && mx <= 0:
		c.warn(join(p, "max"), "must be greater than 0, got %s; send the top of the gauge's scale", numText(m["max"]))
	case okV && okM && v > mx:
		c.warn(join(p, "value"), "%s is greater than max %s; send a value up to max, or raise max", numText(m["value"]), numText(m["max"]))
	}
}

// checkStepper: current is the index of an existing step.
func checkStepper(c *checker, p string, m map[string]any) {
	cur, ok := asNumber(m["current"])
	steps, isArr := m["steps"].([]any)
	if !ok || !isArr || cur < 0 || cur != math.Trunc(cur) || cur < float64(len(steps)) {
		return
	}
	if len(steps) == 0 {
		c.warn(join(p, "current"), "%s points at a step, but steps is empty; send the steps", numText(m["current"]))
		return
	}
	c.warn(join(p, "current"), "%s is past the last step; send a 0-based index from 0 to %d", numText(m["current"]), len(steps)-1)
}

// checkDiff: text mode sends both sides.
func checkDiff(c *checker, p string, m map[string]any) {
	if !present(m, "old_text") && !present(m, "new_text") {
		return
	}
	for _, k := range []string{"old_text", "new_text"} {
		if !present(m, k) {
			c.warn(join(p, k), `missing; send both old_text and new_text ("" for an empty side)`)
		}
	}
}

// checkForm: field ids are unique, choice fields have options, validation
// bounds are ordered, and a default value fits its field.
func checkForm(c *checker, p string, m map[string]any) {
	seen := map[string]string{}
	for i, f := range asArray(m["fields"]) {
		o := asObject(f)
		if o == nil {
			continue
		}
		fp := index(join(p, "fields"), i)
		if id, ok := o["field_id"].(string); ok {
			if first, dup := seen[id]; dup {
				c.warn(join(fp, "field_id"), "duplicate field_id %s (already used by %s); give each field its own field_id", quote(id), first)
			} else {
				seen[id] = fp
			}
		}
		t, _ := o["type"].(string)
		if t == "select" || t == "multi_select" || t == "radio" {
			if opts, isArr := o["options"].([]any); o["options"] == nil {
				c.warn(join(fp, "options"), "missing; a %s field needs options [{value, label}]", t)
			} else if isArr && len(opts) == 0 {
				c.warn(join(fp, "options"), "is empty; send at least one option {value, label}")
			}
		}
		if v := asObject(o["validation"]); v != nil {
			lo, okLo := asNumber(v["min"])
			hi, okHi := asNumber(v["max"])
			if okLo && okHi && lo > hi {
				c.warn(join(fp, "validation"), "min %s is greater than max %s; send min <= max", numText(v["min"]), numText(v["max"]))
			}
		}
		checkDefault(c, join(fp, "default_value"), t, o)
	}
}

func checkDefault(c *checker, p, t string, o map[string]any) {
	d := o["default_value"]
	if d == nil {
		return
	}
	switch t {
	case "number":
		if _, ok := d.(json.Number); !ok {
			c.warn(p, "expected a number, got %s; send a JSON number", got(d))
		}
	case "select", "radio":
		var values []string
		allowed := map[string]bool{}
		for _, opt := range asArray(o["options"]) {
			if k, ok := scalarKey(asObject(opt)["value"]); ok {
				values = append(values, k)
				allowed[k] = true
			}
		}
		if k, ok := scalarKey(d); len(values) > 0 && (!ok || !allowed[k]) {
			c.warn(p, "%s is not one of the option values; send one of %s", got(d), keyList(values))
		}
	}
}

// checkHeatmap: values is rows x columns, and min <= max.
func checkHeatmap(c *checker, p string, m map[string]any) {
	rows, okR := m["rows"].([]any)
	cols, okC := m["columns"].([]any)
	vals, okV := m["values"].([]any)
	vp := join(p, "values")
	if okR && okV && len(vals) != len(rows) {
		c.warn(vp, "has %d rows but rows names %d; send one row of values per row label", len(vals), len(rows))
	}
	if okC && okV {
		for i, r := range vals {
			if ra, ok := r.([]any); ok && len(ra) != len(cols) {
				c.warn(index(vp, i), "has %d values but columns names %d; send one value per column", len(ra), len(cols))
			}
		}
	}
	lo, okLo := asNumber(m["min"])
	hi, okHi := asNumber(m["max"])
	if okLo && okHi && lo > hi {
		c.warn(join(p, "min"), "%s is greater than max %s; send min <= max, or leave both out to detect them", numText(m["min"]), numText(m["max"]))
	}
}
