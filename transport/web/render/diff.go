package render

// The diff block. Text mode compares old_text and new_text line by line (go-udiff's
// LCS, whose search depth is bounded) and draws a unified table, or a split one
// that a narrow container swaps for the unified table by CSS; every changed line
// says "added"/"removed" in words as well as by colour and sign, a run of more than
// diffFoldOver unchanged lines folds down to diffContext lines either side of a
// change behind an "N unchanged lines" disclosure (a <details> whose open state
// shows the rows by CSS, so it works without script), tabs are 4 columns wide (as
// in the code block), and changed words within a paired line are marked. Numeric mode lists
// items with their computed change, said in words with an arrow. Texts over
// diffMaxLines or diffMaxBytes are not compared. Cell text is escaped by chroma's
// formatter (code.go) or html/template.

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"
)

const (
	// diffMaxLines and diffMaxBytes bound the texts compared line by line.
	diffMaxLines = 5_000
	diffMaxBytes = 500_000
	// diffContext is how many unchanged lines stay around a change; a run of more
	// than diffFoldOver unchanged lines folds (what is left beside the context).
	diffContext  = 3
	diffFoldOver = 8
	// diffWordMax bounds the lines whose changed words are marked.
	diffWordMax = 1_000
)

func init() {
	register("diff", viewDiff)
}

type diffView struct {
	Text *diffText
	Nums *diffNums
}

type diffText struct {
	OldLabel, NewLabel string
	Split              bool
	Adds, Dels         int
	Note               string
	Large              bool   // too large to compare: both texts shown whole
	OldText, NewText   string // when Large
	OldLines, NewLines int
	Unified            []diffSeg[diffRow]
	Pairs              []diffSeg[diffPair]
}

// diffSeg is a run of table rows; a fold is a run of unchanged lines hidden
// behind a disclosure until the reader opens it.
type diffSeg[T any] struct {
	Fold int // > 0: this run is foldable and holds Fold lines
	Cols int // table columns (for the fold bar's colspan)
	Rows []T
}

type diffRow struct {
	Kind     string // add, del or ctx
	Old, New int    // line numbers, 0 for none
	HTML     template.HTML
}

type diffPair struct {
	Left, Right diffRow // Kind "" for an empty side
}

type diffNums struct {
	OldLabel, NewLabel string
	Items              []diffNum
	More               int
}

type diffNum struct {
	Label    string
	Old, New string
	Change   string // "+24.5 EUR", "" when unknown
	Dir      string // up, down, flat or ""
	Words    string // "up 12.5%", "down", "no change"
}

func viewDiff(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		OldText  *Scalar `json:"old_text"`
		NewText  *Scalar `json:"new_text"`
		Language Scalar  `json:"language"`
		OldLabel Scalar  `json:"old_label"`
		NewLabel Scalar  `json:"new_label"`
		ViewMode Scalar  `json:"view_mode"`
		Items    []struct {
			Label Scalar `json:"label"`
			Old   Number `json:"old"`
			New   Number `json:"new"`
			Unit  Scalar `json:"unit"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	oldLabel, newLabel := strings.TrimSpace(d.OldLabel.String()), strings.TrimSpace(d.NewLabel.String())
	var v diffView
	if d.OldText != nil || d.NewText != nil || len(d.Items) == 0 {
		var o, n string
		if d.OldText != nil {
			o = d.OldText.String()
		}
		if d.NewText != nil {
			n = d.NewText.String()
		}
		t := diffTexts(o, n, d.Language.String())
		t.OldLabel, t.NewLabel = txOr(oldLabel, "Before"), txOr(newLabel, "After")
		t.Split = strings.EqualFold(strings.TrimSpace(d.ViewMode.String()), "split")
		v.Text = &t
	}
	if len(d.Items) > 0 {
		nums := &diffNums{OldLabel: txOr(oldLabel, "Before"), NewLabel: txOr(newLabel, "After")}
		items := d.Items
		if len(items) > maxItems {
			nums.More = len(items) - maxItems
			items = items[:maxItems]
		}
		for _, it := range items {
			nums.Items = append(nums.Items, diffNumber(strings.TrimSpace(it.Label.String()), it.Old, it.New, strings.TrimSpace(it.Unit.String())))
		}
		v.Nums = nums
	}
	return v, nil
}

func txOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// diffSplit are the lines of a text (none for an empty text).
func diffSplit(s string) []string {
	if s == "" {
		return nil
	}
	return codeLines(s)
}

// diffTexts compares two texts line by line.
func diffTexts(oldText, newText, lang string) diffText {
	oldText = strings.ReplaceAll(oldText, "\r\n", "\n")
	newText = strings.ReplaceAll(newText, "\r\n", "\n")
	a, b := diffSplit(oldText), diffSplit(newText)
	t := diffText{OldLines: len(a), NewLines: len(b)}
	if len(a) > diffMaxLines || len(b) > diffMaxLines || len(oldText) > diffMaxBytes || len(newText) > diffMaxBytes {
		t.Large, t.OldText, t.NewText = true, oldText, newText
		t.Note = "These texts are too long to compare line by line here (" + formatNumber(float64(len(a))) + " and " +
			formatNumber(float64(len(b))) + " lines); both are shown whole below."
		return t
	}
	ta, _ := codeTokens(lang, oldText, len(a))
	tb, _ := codeTokens(lang, newText, len(b))
	line := func(kind string, toks []chroma.Token, on, nn int, marks [][2]int) diffRow {
		var buf bytes.Buffer
		diffMarked(&buf, toks, marks)
		return diffRow{Kind: kind, Old: on, New: nn, HTML: template.HTML(buf.String())} // #nosec: chroma-escaped tokens
	}

	// ops in order: equal runs, then each change as its removed and added lines.
	type op struct {
		kind   string
		ai, bi int // 0-based line indexes (-1 for none)
	}
	var ops []op
	pa, pb := 0, 0
	emitEqual := func(toA int) {
		for ; pa < toA; pa, pb = pa+1, pb+1 {
			ops = append(ops, op{"ctx", pa, pb})
		}
	}
	for _, d := range lcs.DiffLines(a, b) {
		emitEqual(d.Start)
		for i := d.Start; i < d.End; i++ {
			ops = append(ops, op{"del", i, -1})
			t.Dels++
		}
		for j := d.ReplStart; j < d.ReplEnd; j++ {
			ops = append(ops, op{"add", -1, j})
			t.Adds++
		}
		pa, pb = d.End, d.ReplEnd
	}
	emitEqual(len(a))
	if t.Adds == 0 && t.Dels == 0 && oldText != newText {
		t.Note = "The texts differ only in the line end after the last line."
	}

	// Changes are blocks of removed then added lines; the i-th removed line pairs
	// with the i-th added one (side by side, and for marking changed words).
	var uni []diffRow
	var pairs []diffPair
	var uniCtx, pairCtx []bool // whether each row is an unchanged line
	for i := 0; i < len(ops); {
		if ops[i].kind == "ctx" {
			r := line("ctx", ta[ops[i].ai], ops[i].ai+1, ops[i].bi+1, nil)
			uni, uniCtx = append(uni, r), append(uniCtx, true)
			left, right := r, line("ctx", tb[ops[i].bi], 0, ops[i].bi+1, nil)
			left.New = 0
			pairs, pairCtx = append(pairs, diffPair{Left: left, Right: right}), append(pairCtx, true)
			i++
			continue
		}
		var dels, adds []op
		for ; i < len(ops) && ops[i].kind != "ctx"; i++ {
			if ops[i].kind == "del" {
				dels = append(dels, ops[i])
			} else {
				adds = append(adds, ops[i])
			}
		}
		delRows, addRows := make([]diffRow, len(dels)), make([]diffRow, len(adds))
		for k, o := range dels {
			var ma, mb [][2]int
			if k < len(adds) {
				ma, mb = diffWords(a[o.ai], b[adds[k].bi])
				addRows[k] = line("add", tb[adds[k].bi], 0, adds[k].bi+1, mb)
			}
			delRows[k] = line("del", ta[o.ai], o.ai+1, 0, ma)
		}
		for k := len(dels); k < len(adds); k++ {
			addRows[k] = line("add", tb[adds[k].bi], 0, adds[k].bi+1, nil)
		}
		for _, r := range delRows {
			uni, uniCtx = append(uni, r), append(uniCtx, false)
		}
		for _, r := range addRows {
			uni, uniCtx = append(uni, r), append(uniCtx, false)
		}
		for k := 0; k < max(len(delRows), len(addRows)); k++ {
			var p diffPair
			if k < len(delRows) {
				p.Left = delRows[k]
			}
			if k < len(addRows) {
				p.Right = addRows[k]
			}
			pairs, pairCtx = append(pairs, p), append(pairCtx, false)
		}
	}
	t.Unified = diffFold(uni, uniCtx, 4)
	t.Pairs = diffFold(pairs, pairCtx, 6)
	return t
}

// diffFold cuts rows into segments, folding each run of more than diffFoldOver
// unchanged rows down to diffContext rows either side of a change (none on the side
// of the text's start or end).
func diffFold[T any](rows []T, ctx []bool, cols int) []diffSeg[T] {
	var segs []diffSeg[T]
	add := func(fold bool, rs []T) {
		if len(rs) == 0 {
			return
		}
		if !fold && len(segs) > 0 && segs[len(segs)-1].Fold == 0 {
			segs[len(segs)-1].Rows = append(segs[len(segs)-1].Rows, rs...)
			return
		}
		s := diffSeg[T]{Rows: rs, Cols: cols}
		if fold {
			s.Fold = len(rs)
		}
		segs = append(segs, s)
	}
	for i := 0; i < len(rows); {
		if !ctx[i] {
			j := i
			for j < len(rows) && !ctx[j] {
				j++
			}
			add(false, rows[i:j])
			i = j
			continue
		}
		j := i
		for j < len(rows) && ctx[j] {
			j++
		}
		keepBefore, keepAfter := diffContext, diffContext
		if i == 0 {
			keepBefore = 0 // nothing changed above this run
		}
		if j == len(rows) {
			keepAfter = 0
		}
		if n := j - i; n > diffFoldOver && n > keepBefore+keepAfter {
			add(false, rows[i:i+keepBefore])
			add(true, rows[i+keepBefore:j-keepAfter])
			add(false, rows[j-keepAfter:j])
		} else {
			add(false, rows[i:j])
		}
		i = j
	}
	return segs
}

// diffWords are the changed byte ranges of a removed line and the added line that
// replaces it, or none when the lines are long or mostly rewritten (marking then
// says nothing the whole-line colour does not).
func diffWords(a, b string) (ra, rb [][2]int) {
	if len(a) > diffWordMax || len(b) > diffWordMax || a == b {
		return nil, nil
	}
	edits := udiff.Strings(a, b)
	changedA, changedB, delta := 0, 0, 0
	for _, e := range edits {
		if e.Start < 0 || e.End > len(a) || e.Start > e.End {
			return nil, nil
		}
		sb := e.Start + delta
		if e.End > e.Start {
			ra = append(ra, [2]int{e.Start, e.End})
			changedA += e.End - e.Start
		}
		if e.New != "" {
			rb = append(rb, [2]int{sb, sb + len(e.New)})
			changedB += len(e.New)
		}
		delta += len(e.New) - (e.End - e.Start)
	}
	if changedA*10 > len(a)*6 || changedB*10 > len(b)*6 || len(ra)+len(rb) > 12 {
		return nil, nil
	}
	return ra, rb
}

// diffMarked writes a line's tokens, wrapping the bytes inside marks (sorted,
// disjoint ranges) in <span class="diff-x">. Tokens are cut at the marks' edges and
// every piece is written by chroma's formatter, which escapes it.
func diffMarked(buf *bytes.Buffer, toks []chroma.Token, marks [][2]int) {
	if len(marks) == 0 {
		codeFormat(buf, toks)
		return
	}
	var group []chroma.Token
	inMark := false
	flush := func() {
		if len(group) == 0 {
			return
		}
		if inMark {
			buf.WriteString(`<span class="diff-x">`)
		}
		codeFormat(buf, group)
		if inMark {
			buf.WriteString(`</span>`)
		}
		group = group[:0]
	}
	pos, m := 0, 0
	for _, tok := range toks {
		val := tok.Value
		for val != "" {
			for m < len(marks) && pos >= marks[m][1] {
				m++
			}
			marked := m < len(marks) && pos >= marks[m][0]
			n := len(val)
			if m < len(marks) {
				if marked {
					n = min(n, marks[m][1]-pos)
				} else {
					n = min(n, marks[m][0]-pos)
				}
			}
			n = max(n, 1)
			if marked != inMark {
				flush()
				inMark = marked
			}
			piece := tok
			piece.Value = val[:n]
			group = append(group, piece)
			val, pos = val[n:], pos+n
		}
	}
	flush()
}

// diffNumber is one numeric item with its change: new − old, and the percentage
// when old is not 0. Up and down are said in words and shown by arrow, and are
// coloured alike (neutral): whether up is good depends on what is measured.
func diffNumber(label string, o, n Number, unit string) diffNum {
	d := diffNum{Label: label}
	if d.Label == "" {
		d.Label = "(unnamed)"
	}
	d.Old, d.New = "—", "—"
	if o.OK {
		d.Old = diffUnit(formatNumber(o.V), unit)
	}
	if n.OK {
		d.New = diffUnit(formatNumber(n.V), unit)
	}
	if !o.OK || !n.OK {
		return d
	}
	delta := n.V - o.V
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return d
	}
	switch {
	case delta > 0:
		d.Dir, d.Words = "up", "up"
		d.Change = "+" + diffUnit(formatNumber(delta), unit)
	case delta < 0:
		d.Dir, d.Words = "down", "down"
		d.Change = "−" + diffUnit(formatNumber(-delta), unit)
	default:
		d.Dir, d.Words, d.Change = "flat", "no change", "0"
		return d
	}
	if o.V != 0 {
		pct := math.Round(math.Abs(delta/o.V)*1000) / 10
		if !math.IsInf(pct, 0) && !math.IsNaN(pct) {
			d.Words += " " + formatNumber(pct) + "%"
		}
	}
	return d
}

// diffUnit writes a formatted number with its unit: currency symbols before it
// ("$12"), "%" right after it, any other unit after a space ("12 EUR").
func diffUnit(num, unit string) string {
	switch {
	case unit == "":
		return num
	case unit == "%":
		return num + "%"
	case strings.Contains("$€£¥₹", unit) && len([]rune(unit)) == 1:
		if strings.HasPrefix(num, "-") {
			return "-" + unit + num[1:]
		}
		return unit + num
	}
	return num + " " + txClip(unit, 40)
}
