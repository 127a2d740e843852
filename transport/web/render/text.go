package render

// The prose blocks: text and rich_text (Markdown through md only), callout (a
// coloured note whose kind is also said in words and shown by its icon's shape),
// thread (a conversation) and divider. Everything an agent wrote reaches the page
// through html/template or the Markdown sanitiser; avatar addresses pass safeWebURL.

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"html/template"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

func init() {
	register("text", viewText)
	register("rich_text", viewRichText)
	register("callout", viewCallout)
	register("thread", viewThread)
	register("divider", viewDivider)
	addFuncs(template.FuncMap{"txHeading": txHeading, "txPlural": txPlural})
}

// txHeading is a heading of level 2..6 with an id and class, whose text is
// preceded by a visually hidden prefix ("Warning: "); every string is escaped.
func txHeading(level int, id, class, hidden, text string) template.HTML {
	l := strconv.Itoa(min(max(level, 2), 6))
	var b strings.Builder
	b.WriteString("<h" + l + ` class="` + template.HTMLEscapeString(class) + `" id="` + template.HTMLEscapeString(id) + `">`)
	if hidden != "" {
		b.WriteString(`<span class="visually-hidden">` + template.HTMLEscapeString(hidden) + `</span>`)
	}
	b.WriteString(template.HTMLEscapeString(text) + "</h" + l + ">")
	return template.HTML(b.String()) // #nosec: every piece escaped above
}

// txPlural is "1 addition" or "3 additions".
func txPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatNumber(float64(n)) + " " + many
}

// txFlag is a boolean an agent may also send as "true"/"false" (or 1/0); anything
// else reads as false.
type txFlag bool

func (f *txFlag) UnmarshalJSON(b []byte) error {
	switch strings.ToLower(strings.Trim(string(bytes.TrimSpace(b)), `"`)) {
	case "true", "1", "yes":
		*f = true
	default:
		*f = false
	}
	return nil
}

// txClip cuts s to at most n runes, marking the cut with "…".
func txClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// txDisplay is a displayed value as a person reads it: booleans as Yes/No, the rest
// as written.
func txDisplay(s Scalar) string {
	switch s {
	case "true":
		return "Yes"
	case "false":
		return "No"
	}
	return s.String()
}

// text and rich_text

type textView struct {
	Content     string
	Collapsible bool
	Summary     string
	Level       int
	HeadingID   string
	MdLevel     int // the level of a "# Heading" in Content: one under the block's title
}

func viewText(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title   Scalar `json:"title"`
		Content Scalar `json:"content"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	return textView{Content: d.Content.String(), MdLevel: stSubLevel(c, d.Title)}, nil
}

// rich_text is text that can be folded: collapsible shows it in a <details>,
// expanded at first, whose <summary> carries the block's title (so the box does
// not repeat it).
func viewRichText(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title       Scalar `json:"title"`
		Content     Scalar `json:"content"`
		Collapsible txFlag `json:"collapsible"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := textView{Content: d.Content.String(), Collapsible: bool(d.Collapsible), MdLevel: stSubLevel(c, d.Title)}
	if v.Collapsible {
		c.OwnTitle()
		v.Summary = strings.TrimSpace(d.Title.String())
		if v.Summary == "" {
			v.Summary = "Details"
		}
		v.Level, v.HeadingID = c.Level(), c.DOMID()+"-h"
		v.MdLevel = min(v.Level+1, 6) // under the summary's heading
	}
	return v, nil
}

// callout

type calloutView struct {
	Style       string // info, warning, error, success
	Label       string // the style in words, said before the text ("Warning")
	Icon        string // icon name
	Title       string
	Level       int
	HeadingID   string
	Content     string
	Collapsible bool
	MdLevel     int // the level of a "# Heading" in Content: one under the title
}

var calloutLabels = map[string]string{"info": "Note", "warning": "Warning", "error": "Error", "success": "Success"}

// A callout draws its own title inside its coloured box (the box's plain heading
// would sit outside it), so it always calls OwnTitle. It is a role="note" whatever
// its style: it is static content, and an error callout is no live alert.
func viewCallout(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title       Scalar `json:"title"`
		Content     Scalar `json:"content"`
		Message     Scalar `json:"message"`
		Style       Scalar `json:"style"`
		Icon        Scalar `json:"icon"`
		Collapsible txFlag `json:"collapsible"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	c.OwnTitle()
	v := calloutView{Style: strings.ToLower(strings.TrimSpace(d.Style.String())), Title: strings.TrimSpace(d.Title.String()),
		Level: c.Level(), HeadingID: c.DOMID() + "-h", Content: d.Content.String(), Collapsible: bool(d.Collapsible),
		MdLevel: stSubLevel(c, d.Title)}
	switch v.Style {
	case "warn":
		v.Style = "warning"
	case "danger":
		v.Style = "error"
	}
	if calloutLabels[v.Style] == "" {
		v.Style = "info"
	}
	v.Label = calloutLabels[v.Style]
	if strings.TrimSpace(v.Content) == "" {
		v.Content = d.Message.String()
	}
	v.Icon = v.Style
	if name := strings.TrimSpace(d.Icon.String()); name != "" && Icon(name) != "" {
		v.Icon = name
	}
	return v, nil
}

// thread

type threadView struct {
	Messages []threadMessage
	More     int
	MdLevel  int // the level of a "# Heading" in a message: one under the block's title
}

type threadMessage struct {
	Author   string
	Avatar   string // a safe image address, or ""
	Initials string // shown when there is no image
	Tone     int    // avatar colour class th-av<Tone>
	Time     string
	DateTime string // machine-readable form of Time when it is ISO 8601
	Content  string
}

func viewThread(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title    Scalar `json:"title"`
		Messages []struct {
			Author  Scalar `json:"author"`
			Avatar  Scalar `json:"avatar"`
			Time    Scalar `json:"time"`
			Content Scalar `json:"content"`
		} `json:"messages"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	msgs := d.Messages
	v := threadView{MdLevel: stSubLevel(c, d.Title)}
	if len(msgs) > maxItems {
		v.More = len(msgs) - maxItems
		msgs = msgs[:maxItems]
	}
	for _, m := range msgs {
		tm := threadMessage{Author: txClip(strings.TrimSpace(m.Author.String()), 200), Time: strings.TrimSpace(m.Time.String()),
			Content: m.Content.String()}
		named := tm.Author != ""
		if !named {
			tm.Author = "Unknown"
		}
		avatar := strings.TrimSpace(m.Avatar.String())
		if u, ok := safeWebURL(avatar); ok {
			tm.Avatar = u
		} else if avatar != "" && !strings.ContainsAny(avatar, ":/.") && utf8.RuneCountInString(avatar) <= 3 {
			tm.Initials = strings.ToUpper(string([]rune(avatar)[:min(2, utf8.RuneCountInString(avatar))]))
		} else if named {
			tm.Initials = threadInitials(tm.Author)
		} else {
			tm.Initials = "?"
		}
		h := fnv.New32a()
		h.Write([]byte(tm.Author))
		tm.Tone = int(h.Sum32() % 5)
		tm.DateTime = isoTime(tm.Time)
		v.Messages = append(v.Messages, tm)
	}
	return v, nil
}

// threadInitials are the first letters of the first two words of a name ("Ada
// Lovelace" -> "AL"), or "?" when it has none.
func threadInitials(name string) string {
	var out []rune
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r, _ := utf8.DecodeRuneInString(w)
		out = append(out, unicode.ToUpper(r))
		if len(out) == 2 {
			break
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return string(out)
}

// isoTime is the datetime attribute for a time an agent wrote, when it is ISO 8601
// (a date, or a date and time with or without a zone), else "".
func isoTime(s string) string {
	if len(s) < 10 || len(s) > 40 {
		return ""
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05",
		"2006-01-02 15:04", "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			if strings.HasSuffix(layout, "07:00") {
				return t.Format(time.RFC3339Nano)
			}
			return t.Format("2006-01-02T15:04:05")
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format("2006-01-02")
	}
	return ""
}

// divider

type dividerView struct {
	Style, Spacing string
	Title          string
	Level          int
	HeadingID      string
}

// A divider with a title draws the title on the rule itself (a labelled
// separator), so it takes the title from the box.
func viewDivider(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title   Scalar `json:"title"`
		Style   Scalar `json:"style"`
		Spacing Scalar `json:"spacing"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := dividerView{Style: "solid", Spacing: "medium", Title: strings.TrimSpace(d.Title.String()), Level: c.Level(), HeadingID: c.DOMID() + "-h"}
	switch s := strings.ToLower(strings.TrimSpace(d.Style.String())); s {
	case "dashed", "dotted":
		v.Style = s
	}
	switch s := strings.ToLower(strings.TrimSpace(d.Spacing.String())); s {
	case "small", "large":
		v.Spacing = s
	}
	if v.Title != "" {
		c.OwnTitle()
	}
	return v, nil
}
