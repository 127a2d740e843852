package render

// The preformatted blocks: code (server-side highlighting with chroma, CSS classes
// only, an optional line-number gutter that is never copied, highlighted lines, a
// progressive Copy button) and logs (monospace lines with a level badge in a
// keyboard-scrollable box). Chroma escapes every token it writes; everything else
// here is a number we computed or goes through html/template. Highlighting is
// bounded: content over codeMaxBytes or codeMaxLines is shown as plain escaped text.

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

const (
	// codeMaxBytes and codeMaxLines bound what is highlighted; longer content is
	// shown as plain escaped text so a page of many blocks stays cheap to draw.
	codeMaxBytes = 200_000
	codeMaxLines = 5_000
)

// codeLexBudget is the longest chroma may take to tokenise one text (a variable
// so that a test can make every text run out of it).
var codeLexBudget = 150 * time.Millisecond

func init() {
	register("code", viewCode)
	register("logs", viewLogs)
}

// The chroma objects are shared by every code block: one formatter writing CSS
// classes (no inline styles, and no <pre> of its own: code.go draws the lines),
// one style (only its class names matter; css/chroma.css holds the colours), and
// an index of the lexers by name, alias and file extension.
var (
	codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))
	codeStyle     = sync.OnceValue(func() *chroma.Style { return styles.Get("github") })
	codeLexers    = sync.OnceValue(codeLexerIndex)
)

// codeLexerIndex maps lower-case language names onto lexers: a lexer's name first,
// then its aliases ("js", "sh"), then the extensions of its file patterns ("py",
// "yml"). Looking a name up is then one map access: chroma's own lookup matches
// unknown names against every file pattern of every lexer, which an agent could
// make slow by naming a new language in each of many blocks.
func codeLexerIndex() map[string]chroma.Lexer {
	byExt, byAlias, byName := map[string]chroma.Lexer{}, map[string]chroma.Lexer{}, map[string]chroma.Lexer{}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		cfg := l.Config()
		if cfg == nil || strings.EqualFold(cfg.Name, "plaintext") {
			continue
		}
		l = chroma.Coalesce(l)
		for _, f := range cfg.Filenames {
			ext, ok := strings.CutPrefix(f, "*.")
			if !ok || ext == "" || strings.ContainsAny(ext, "*?[]{}") {
				continue
			}
			ext = strings.ToLower(ext)
			if cur, dup := byExt[ext]; !dup || cfg.Priority > cur.Config().Priority {
				byExt[ext] = l
			}
		}
		for _, a := range cfg.Aliases {
			if _, dup := byAlias[strings.ToLower(a)]; !dup {
				byAlias[strings.ToLower(a)] = l
			}
		}
		if _, dup := byName[strings.ToLower(cfg.Name)]; !dup {
			byName[strings.ToLower(cfg.Name)] = l
		}
	}
	idx := byExt
	for k, l := range byAlias {
		idx[k] = l
	}
	for k, l := range byName {
		idx[k] = l
	}
	return idx
}

// codeLexer is the lexer of a language name ("python", "js", "yaml"), or nil for a
// name chroma does not know (the code is then shown as plain text).
func codeLexer(lang string) chroma.Lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "" || len(lang) > 40 {
		return nil
	}
	return codeLexers()[lang]
}

// codeLines splits text into its lines (without the line ends) the way a reader
// counts them: a final line end does not start another line.
func codeLines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// codeTokens returns the tokens of each line of text, line ends removed: chroma's
// when it knows the language and tokenises the text within the bounds and
// codeLexBudget (lexed is then true), else one plain-text token a line. text must
// use "\n" line ends and lines must be len(codeLines(text)).
func codeTokens(lang, text string, lines int) (out [][]chroma.Token, lexed bool) {
	if lexer := codeLexer(lang); lexer != nil && len(text) <= codeMaxBytes && lines <= codeMaxLines {
		if split := codeLex(lexer, text); len(split) >= lines {
			for i := range lines {
				if n := len(split[i]); n > 0 {
					split[i][n-1].Value = strings.TrimSuffix(split[i][n-1].Value, "\n")
				}
			}
			return split[:lines], true
		}
	}
	out = make([][]chroma.Token, lines)
	for i, line := range codeLines(text) {
		if i < lines {
			out[i] = []chroma.Token{{Type: chroma.Text, Value: line}}
		}
	}
	return out, false
}

// codeLex tokenises text split into lines, or nil when chroma fails or takes
// longer than codeLexBudget: some inputs make its regular expressions slow (200
// KB of brackets takes seconds), and a page must not wait on them. chroma's
// iterator produces tokens one by one, so the budget is checked as they come.
func codeLex(lexer chroma.Lexer, text string) (split [][]chroma.Token) {
	defer func() {
		if recover() != nil {
			split = nil
		}
	}()
	it, err := lexer.Tokenise(&chroma.TokeniseOptions{State: "root", EnsureLF: true}, text)
	if err != nil {
		return nil
	}
	start := time.Now()
	var toks []chroma.Token
	for n := 0; ; n++ {
		tok := it()
		if tok == chroma.EOF {
			break
		}
		toks = append(toks, tok)
		if n%8 == 0 && time.Since(start) > codeLexBudget {
			return nil
		}
	}
	return chroma.SplitTokensIntoLines(toks)
}

// codeFormat writes tokens as HTML: chroma's formatter, which escapes every token
// and names its type by a CSS class (css/chroma.css colours them).
func codeFormat(buf *bytes.Buffer, toks []chroma.Token) {
	if len(toks) == 0 {
		return
	}
	if err := codeFormatter.Format(buf, codeStyle(), chroma.Literator(toks...)); err != nil {
		for _, t := range toks {
			buf.WriteString(template.HTMLEscapeString(t.Value))
		}
	}
}

// codeLangName is how a language is labelled: chroma's name for it when known
// ("Python"), else what the agent wrote ("log").
func codeLangName(lang string) string {
	lang = strings.TrimSpace(lang)
	if l := codeLexer(lang); l != nil && l.Config() != nil && l.Config().Name != "" {
		return l.Config().Name
	}
	if len(lang) > 40 {
		return ""
	}
	return lang
}

type codeView struct {
	Lang   string        // label shown above the code ("" for none)
	Code   template.HTML // the inside of <code>
	Plain  bool          // shown without highlighting
	Empty  bool
	Gutter string // "code-d<digits>" when line numbers are shown
	Height string
	Note   string
}

func viewCode(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Content        Scalar   `json:"content"`
		Language       Scalar   `json:"language"`
		LineNumbers    txFlag   `json:"line_numbers"`
		HighlightLines []Number `json:"highlight_lines"`
		MaxHeight      Scalar   `json:"max_height"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(d.Content.String(), "\r\n", "\n")
	v := codeView{Lang: codeLangName(d.Language.String()), Height: heightClass(d.MaxHeight)}
	if strings.TrimSpace(text) == "" {
		v.Empty = true
		return v, nil
	}
	lines := codeLines(text)
	if len(text) > codeMaxBytes || len(lines) > codeMaxLines {
		v.Plain = true
		v.Note = "Shown as plain text: at " + txPlural(len(lines), "line", "lines") + " and " + formatNumber(math.Ceil(float64(len(text))/1000)) +
			" KB, this code is longer than the page highlights."
		v.Code = template.HTML(template.HTMLEscapeString(text)) // #nosec: escaped
		return v, nil
	}
	marked := map[int]bool{}
	for i, n := range d.HighlightLines {
		if i >= maxItems {
			break
		}
		if n.OK && n.V >= 1 && n.V <= float64(len(lines)) {
			marked[int(n.V)] = true
		}
	}
	toks, lexed := codeTokens(d.Language.String(), text, len(lines))
	if !lexed && codeLexer(d.Language.String()) != nil {
		v.Note = "Shown without colours: this code takes too long to highlight."
	}
	if bool(d.LineNumbers) {
		v.Gutter = "code-d" + strconv.Itoa(min(len(strconv.Itoa(len(lines))), 4))
	}
	// Each line is a span (a <mark> when highlighted) whose line end stays outside
	// it, so the code's text is exactly the content: copying a selection or the
	// Copy button (which reads textContent) gets the lines and nothing else. The
	// number is drawn from data-n by CSS, so it is never selected or copied.
	var b bytes.Buffer
	b.Grow(len(text) * 2)
	for i := range lines {
		n := i + 1
		if marked[n] {
			b.WriteString(`<mark class="code-line code-hl">`)
		} else {
			b.WriteString(`<span class="code-line">`)
		}
		if v.Gutter != "" {
			b.WriteString(`<span class="code-ln" data-n="` + strconv.Itoa(n) + `" aria-hidden="true"></span>`)
		}
		codeFormat(&b, toks[i])
		if marked[n] {
			b.WriteString(`</mark>`)
		} else {
			b.WriteString(`</span>`)
		}
		if i < len(lines)-1 || strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	v.Code = template.HTML(b.String()) // #nosec: chroma-escaped tokens, escaped lines, numbers
	return v, nil
}

// logs

type logView struct {
	Label  string // the log box's accessible name
	Height string
	Auto   bool
	Lines  []logLine
	Skip   int // earlier lines not shown
	// HasTime and HasLevel say whether the time and level columns are drawn.
	HasTime, HasLevel bool
}

type logLine struct {
	Time    string
	Level   string // shown text: INFO, WARN, ERROR, DEBUG or the agent's word
	Class   string // log-info … log-debug, log-other
	Message string
}

func viewLogs(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title      Scalar `json:"title"`
		MaxHeight  Scalar `json:"max_height"`
		AutoScroll txFlag `json:"auto_scroll"`
		Lines      []struct {
			Time    Scalar `json:"time"`
			Level   Scalar `json:"level"`
			Message Scalar `json:"message"`
		} `json:"lines"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := logView{Label: strings.TrimSpace(d.Title.String()), Height: heightClass(d.MaxHeight), Auto: bool(d.AutoScroll)}
	if v.Label == "" {
		v.Label = "Log"
	}
	if v.Height == "" {
		v.Height = "mh-400"
	}
	lines := d.Lines
	// The newest lines matter most in a log: a long one keeps its last maxItems.
	if len(lines) > maxItems {
		v.Skip = len(lines) - maxItems
		lines = lines[v.Skip:]
	}
	for _, l := range lines {
		lvl := strings.ToLower(strings.TrimSpace(l.Level.String()))
		line := logLine{Time: strings.TrimSpace(l.Time.String()), Message: l.Message.String()}
		switch lvl {
		case "":
		case "info", "warn", "error", "debug":
			line.Level, line.Class = strings.ToUpper(lvl), "log-"+lvl
		case "warning":
			line.Level, line.Class = "WARN", "log-warn"
		case "err", "fatal", "critical":
			line.Level, line.Class = strings.ToUpper(lvl), "log-error"
		default:
			line.Level, line.Class = strings.ToUpper(txClip(lvl, 12)), "log-other"
		}
		v.HasTime = v.HasTime || line.Time != ""
		v.HasLevel = v.HasLevel || line.Level != ""
		v.Lines = append(v.Lines, line)
	}
	return v, nil
}
