package page

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// The content version and the content hash bind a decision to what the person saw.
//
// Page.Version is the content version: 1 at creation, raised by one by every commit
// that changes the title, the summary, the blocks (content, order, additions,
// removals) or the actions, and by nothing else (views, comments, files, decisions
// and settings such as tags, access or expiry leave it alone).
//
// The content hash is "sha256:" + hex(sha256(canonical content bytes)); the
// canonical content is the JSON object
//
//	{"actions":[…],"blocks":[…],"summary":"…","title":"…"}
//
// with the actions as the page object lists them (action_id, label, style, decision,
// final) and the top-level blocks in page order (id, type, data, group, tab,
// editable; nested blocks inside their parent's data), written without
// insignificant whitespace, object keys sorted by their UTF-8 bytes, numbers exactly
// as the agent wrote them, strings as Go's encoding/json writes them without HTML
// escaping, and members that are absent or empty on the page object (style,
// decision, final, group, tab, editable false) left out. An agent holding the page object can recompute it.

// ContentChanges records, per part of the page's content, the content version at
// which it last changed, so a decision on an older version can say what changed
// since. A part with no entry has not changed since version 1.
type ContentChanges struct {
	Title   int            `json:"title,omitempty"`
	Summary int            `json:"summary,omitempty"`
	Actions int            `json:"actions,omitempty"`
	Order   int            `json:"order,omitempty"`   // the blocks' order (reorder, insert, removal)
	Blocks  map[string]int `json:"blocks,omitempty"`  // top-level block id -> version it was added or last changed
	Removed map[string]int `json:"removed,omitempty"` // top-level block id -> version it was removed (bounded)
}

// maxRemovedMarks bounds the removed blocks remembered; the oldest are forgotten
// first (a decision on a version older than a forgotten removal still sees the
// order change).
const maxRemovedMarks = 1000

// bumpContent compares next (a clone of prev being changed) with prev and, when its
// content differs, raises next.Version by one and marks the parts that changed.
// Every command that may change content calls it once before committing.
func bumpContent(prev, next *Page) {
	v := prev.Version + 1
	ch := prev.Changes.clone()
	changed := false
	mark := func(dst *int) { *dst, changed = v, true }
	if next.Title != prev.Title {
		mark(&ch.Title)
	}
	if next.Summary != prev.Summary {
		mark(&ch.Summary)
	}
	if !sameActions(prev.Actions, next.Actions) {
		mark(&ch.Actions)
	}
	old := make(map[string]blocks.Block, len(prev.Blocks))
	for _, b := range prev.Blocks {
		old[b.ID] = b
	}
	var kept []string // ids present before and after, in next's order
	for _, b := range next.Blocks {
		o, ok := old[b.ID]
		if ok {
			kept = append(kept, b.ID)
			delete(old, b.ID)
		}
		if !ok || !sameBlock(o, b) {
			if ch.Blocks == nil {
				ch.Blocks = map[string]int{}
			}
			ch.Blocks[b.ID], changed = v, true
			delete(ch.Removed, b.ID)
		}
	}
	for id := range old { // removed
		if ch.Removed == nil {
			ch.Removed = map[string]int{}
		}
		ch.Removed[id], changed = v, true
		delete(ch.Blocks, id)
		ch.Order = v
	}
	trimRemoved(ch.Removed)
	var before []string
	for _, b := range prev.Blocks {
		if slices.Contains(kept, b.ID) {
			before = append(before, b.ID)
		}
	}
	if !slices.Equal(before, kept) {
		mark(&ch.Order)
	}
	if !changed {
		return
	}
	next.Version = v
	next.Changes = ch
}

func (c *ContentChanges) clone() *ContentChanges {
	if c == nil {
		return &ContentChanges{}
	}
	out := *c
	if c.Blocks != nil {
		out.Blocks = make(map[string]int, len(c.Blocks))
		for k, v := range c.Blocks {
			out.Blocks[k] = v
		}
	}
	if c.Removed != nil {
		out.Removed = make(map[string]int, len(c.Removed))
		for k, v := range c.Removed {
			out.Removed[k] = v
		}
	}
	return &out
}

func trimRemoved(m map[string]int) {
	for len(m) > maxRemovedMarks {
		oldest, at := "", 0
		for id, v := range m {
			if oldest == "" || v < at || (v == at && id < oldest) {
				oldest, at = id, v
			}
		}
		delete(m, oldest)
	}
}

func sameBlock(a, b blocks.Block) bool {
	return a.Type == b.Type && a.Group == b.Group && a.Tab == b.Tab && a.Editable == b.Editable && bytes.Equal(a.Data, b.Data)
}

func sameActions(a, b []Action) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.final() != y.final() || (x.Final == nil) != (y.Final == nil) {
			return false
		}
		x.Final, y.Final = nil, nil
		if x != y {
			return false
		}
	}
	return true
}

// Changed is what differs between content version since and the page's current one.
type Changed struct {
	Fields  []string // title, summary, actions, order
	Blocks  []string // ids of current top-level blocks added or changed, in page order
	Removed []string // ids of top-level blocks removed, sorted
}

// ChangedSince lists what changed after content version since.
func (p *Page) ChangedSince(since int) Changed {
	out := Changed{Fields: []string{}, Blocks: []string{}, Removed: []string{}}
	c := p.Changes
	if c == nil {
		return out
	}
	for _, f := range []struct {
		name string
		at   int
	}{{"title", c.Title}, {"summary", c.Summary}, {"actions", c.Actions}, {"order", c.Order}} {
		if f.at > since {
			out.Fields = append(out.Fields, f.name)
		}
	}
	for _, b := range p.Blocks {
		if c.Blocks[b.ID] > since {
			out.Blocks = append(out.Blocks, b.ID)
		}
	}
	for id, at := range c.Removed {
		if at > since {
			out.Removed = append(out.Removed, id)
		}
	}
	sort.Strings(out.Removed)
	return out
}

// checkSeen refuses a decision made on a content version other than the current
// one. seen nil: the caller named no version (an API caller's choice), which keeps
// the behaviour from before versions were checked.
func (p *Page) checkSeen(seen *int) error {
	if seen == nil || *seen == p.Version {
		return nil
	}
	if *seen < 1 || *seen > p.Version {
		return fault.New(fault.Invalid, fmt.Sprintf("page_version %d is not a version of this page; its current version is %d", *seen, p.Version),
			map[string]any{"field": "page_version", "constraint": "range", "minimum": 1, "maximum": p.Version, "current_version": p.Version})
	}
	ch := p.ChangedSince(*seen)
	what := append(append([]string{}, ch.Fields...), ch.Blocks...)
	msg := fmt.Sprintf("the page changed after version %d (now %d): review what changed and decide again on version %d", *seen, p.Version, p.Version)
	if len(ch.Blocks)+len(ch.Removed) > 0 {
		msg = fmt.Sprintf("the page changed after version %d (now %d): %s; review and decide again on version %d",
			*seen, p.Version, changedText(ch), p.Version)
	} else if len(what) > 0 {
		msg = fmt.Sprintf("the page changed after version %d (now %d): its %s changed; review and decide again on version %d",
			*seen, p.Version, strings.Join(ch.Fields, ", "), p.Version)
	}
	return fault.New(fault.Conflict, msg, map[string]any{
		"reason": "page_changed", "page_version": *seen, "current_version": p.Version,
		"changed_blocks": ch.Blocks, "removed_blocks": ch.Removed, "changed_fields": ch.Fields,
	})
}

func changedText(ch Changed) string {
	var parts []string
	if n := len(ch.Blocks); n > 0 {
		parts = append(parts, plural(n, "block")+" added or changed ("+strings.Join(ch.Blocks, ", ")+")")
	}
	if n := len(ch.Removed); n > 0 {
		parts = append(parts, plural(n, "block")+" removed ("+strings.Join(ch.Removed, ", ")+")")
	}
	if slices.Contains(ch.Fields, "title") || slices.Contains(ch.Fields, "summary") || slices.Contains(ch.Fields, "actions") {
		var f []string
		for _, x := range ch.Fields {
			if x != "order" {
				f = append(f, x)
			}
		}
		parts = append(parts, "its "+strings.Join(f, ", ")+" changed")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// ContentHash is the hash of the page's canonical content (see the top of this
// file): "sha256:" and 64 hex digits.
func ContentHash(p *Page) string {
	sum := sha256.Sum256(canonicalContent(p))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalContent is the canonical bytes of the page's title, summary, blocks and
// actions (see the top of this file).
func canonicalContent(p *Page) []byte {
	acts := make([]any, len(p.Actions))
	for i, a := range p.Actions {
		m := map[string]any{"action_id": a.ActionID, "label": a.Label}
		if a.Style != "" {
			m["style"] = a.Style
		}
		if a.Decision != "" {
			m["decision"] = a.Decision
		}
		if a.Final != nil {
			m["final"] = *a.Final
		}
		acts[i] = m
	}
	bs := make([]any, len(p.Blocks))
	for i, b := range p.Blocks {
		m := map[string]any{"id": b.ID, "type": b.Type, "data": canonicalValue(b.Data)}
		if b.Group != "" {
			m["group"] = b.Group
		}
		if b.Tab != "" {
			m["tab"] = b.Tab
		}
		if b.Editable {
			m["editable"] = true
		}
		bs[i] = m
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every value is a map, slice, string, bool or json.Number: encoding cannot fail.
	_ = enc.Encode(map[string]any{"title": p.Title, "summary": p.Summary, "blocks": bs, "actions": acts})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// canonicalValue decodes stored JSON keeping numbers as written; encoding the
// result sorts object keys. Stored block data is valid JSON (checked at publish).
func canonicalValue(raw json.RawMessage) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

// contentHashCache keeps the content hash of one committed page: a committed Page
// is never mutated, so the hash of the same *Page is the same.
type contentHashCache struct {
	of   *Page
	hash string
}

// contentHash is the content hash of the committed page, computed once per commit
// that a decision needs it for.
func (a *Actor) contentHash() string {
	if a.hashed.of != a.page {
		a.hashed = contentHashCache{of: a.page, hash: ContentHash(a.page)}
	}
	return a.hashed.hash
}
