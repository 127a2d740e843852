package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/model/formats"
	"folio/actors/model/ids"
)

// Limits bound every input (docs/behaviour.md); over a limit is a 400 naming it.
type Limits struct {
	TitleChars   int
	SummaryChars int
	Blocks       int // including nested blocks
	Depth        int
	Tags         int
	TagChars     int
	Actions      int
	// AllowPrivateCallbacks silences the publish-time warning for callback and
	// notification targets on private addresses (--allow-private-callbacks).
	AllowPrivateCallbacks bool
	// Deadlines bound the deadline fields (zero: DefaultDeadlineLimits).
	Deadlines DeadlineLimits
	// EditBytes bounds the data of a block a reviewer edited (edits.go; zero:
	// DefaultEditBytes).
	EditBytes int
}

// DefaultLimits are the documented defaults.
var DefaultLimits = Limits{TitleChars: 200, SummaryChars: 5000, Blocks: 500, Depth: 6, Tags: 50, TagChars: 100, Actions: 20}

var (
	versionRe    = regexp.MustCompile(`^(\d+)\.(\d+)$`)
	actionIDRe   = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)
	priorities   = map[string]bool{"low": true, "normal": true, "high": true, "urgent": true}
	accessModes  = map[string]bool{"public": true, "authenticated": true}
	identityType = map[string]bool{"email": true, "domain": true}
	actionStyles = map[string]bool{"primary": true, "secondary": true, "danger": true}
)

// checkVersion enforces the request `version` rule: 1.x accepted, another major 400.
func checkVersion(v *string) error {
	if v == nil {
		return nil
	}
	m := versionRe.FindStringSubmatch(*v)
	if m == nil {
		return fault.Field("version", "format", "version must look like <major>.<minor>, e.g. \"1.0\"")
	}
	if m[1] != "1" {
		e := fault.Field("version", "supported_versions", "version %q is not supported; send a 1.x version", *v)
		e.Details["supported_versions"] = []string{"1.x"}
		return e
	}
	return nil
}

// apply validates req and writes its present fields into p (a clone). creating
// requires a title and fills defaults. It returns the advisory warnings.
func apply(p *Page, req *Request, creating bool, lim Limits, now time.Time) ([]string, error) {
	before := *p // the content as it was: apply replaces fields, never mutates their values
	if err := checkVersion(req.Version); err != nil {
		return nil, err
	}
	if creating && (req.Title == nil || strings.TrimSpace(*req.Title) == "") {
		return nil, fault.Field("title", "required", "title is required")
	}
	if req.Title != nil {
		t := strings.TrimSpace(*req.Title)
		if t == "" {
			return nil, fault.Field("title", "required", "title must not be empty")
		}
		if n := utf8.RuneCountInString(t); n > lim.TitleChars {
			return nil, fault.Limit("title", "max_length", lim.TitleChars, "title is %d characters; the limit is %d", n, lim.TitleChars)
		}
		p.Title = t
	}
	if req.Summary != nil {
		if n := utf8.RuneCountInString(*req.Summary); n > lim.SummaryChars {
			return nil, fault.Limit("summary", "max_length", lim.SummaryChars, "summary is %d characters; the limit is %d", n, lim.SummaryChars)
		}
		p.Summary = *req.Summary
	}
	if req.PageType != nil {
		if len(*req.PageType) > 64 {
			return nil, fault.Limit("page_type", "max_length", 64, "page_type is longer than 64 characters")
		}
		p.PageType = *req.PageType
	}
	if req.Priority != nil {
		if !priorities[*req.Priority] {
			e := fault.Field("priority", "enum", "priority must be one of low, normal, high, urgent")
			e.Details["allowed"] = []string{"low", "normal", "high", "urgent"}
			return nil, e
		}
		p.Priority = *req.Priority
	} else if creating {
		p.Priority = "normal"
	}
	if req.Tags != nil {
		if err := checkTags(*req.Tags, lim); err != nil {
			return nil, err
		}
		p.Tags = append([]string{}, *req.Tags...)
	}
	if req.Access != nil {
		acc, err := checkAccess(*req.Access)
		if err != nil {
			return nil, err
		}
		p.Access = acc
	} else if creating {
		p.Access = Access{Mode: "public"}
	}
	var warnings []string
	if req.Actions != nil {
		acts, w, err := checkActions(*req.Actions, lim)
		if err != nil {
			return nil, err
		}
		p.Actions, warnings = acts, append(warnings, w...)
	}
	for _, raw := range []struct {
		field string
		val   json.RawMessage
		dst   *json.RawMessage
	}{{"notify", req.Notify, &p.Notify}, {"on_action", req.OnAction, &p.OnAction}, {"approval_chain", req.ApprovalChain, &p.ApprovalChain}} {
		if raw.val == nil {
			continue
		}
		if isNull(raw.val) {
			*raw.dst = nil
			continue
		}
		if !isObject(raw.val) {
			return nil, fault.Field(raw.field, "type", "%s must be an object", raw.field)
		}
		*raw.dst = append(json.RawMessage(nil), raw.val...)
	}
	w, err := checkDelivery(p, req, lim) // on_action, notify, approval_chain, decisions (onaction.go)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, w...)
	if req.ExpiresAt != nil {
		at, err := futureTime("expires_at", *req.ExpiresAt, now)
		if err != nil {
			return nil, err
		}
		p.ExpiresAt = &at
	}
	if w, err = setDeadlines(p, req, lim, now); err != nil { // deadline_request.go
		return nil, err
	}
	warnings = append(warnings, w...)
	if req.Blocks != nil {
		bs, w, err := prepareBlocks("blocks", *req.Blocks, nil, 0, lim)
		if err != nil {
			return nil, err
		}
		p.Blocks, warnings = bs, append(warnings, w...)
	}
	if !creating {
		bumpContent(&before, p)
	}
	return warnings, nil
}

// prepareBlocks checks the structure of new blocks (a type string and an object data,
// unique ids, nesting and count limits), assigns missing ids as b_<index>_<8 chars>
// counting from offset, and collects the catalog's advisory warnings.
func prepareBlocks(path string, in []blocks.Block, existing []blocks.Block, offset int, lim Limits) ([]blocks.Block, []string, error) {
	taken := map[string]bool{}
	for _, b := range existing {
		taken[b.ID] = true
	}
	total := blocks.Count(existing)
	out := make([]blocks.Block, len(in))
	for i, b := range in {
		at := fmt.Sprintf("%s[%d]", path, i)
		if strings.TrimSpace(b.Type) == "" {
			return nil, nil, fault.Field(at+".type", "required", "%s.type is required", at)
		}
		if len(b.Type) > 64 {
			return nil, nil, fault.Limit(at+".type", "max_length", 64, "%s.type is longer than 64 characters", at)
		}
		if !isObject(b.Data) {
			return nil, nil, fault.Field(at+".data", "type", "%s.data must be an object", at)
		}
		if d := blocks.Depth(b); d > lim.Depth {
			return nil, nil, fault.Limit(at, "max_depth", lim.Depth, "%s nests blocks %d deep; the limit is %d", at, d, lim.Depth)
		}
		if b.ID == "" {
			b.ID = fmt.Sprintf("b_%d_%s", offset+i, ids.Random(8))
		} else if len(b.ID) > 128 {
			return nil, nil, fault.Limit(at+".id", "max_length", 128, "%s.id is longer than 128 characters", at)
		}
		if taken[b.ID] {
			return nil, nil, fault.Field(at+".id", "unique", "block id %q is used twice on this page", b.ID)
		}
		taken[b.ID] = true
		out[i] = b
	}
	if total += blocks.Count(out); total > lim.Blocks {
		return nil, nil, fault.Limit(path, "max_blocks", lim.Blocks, "the page would have %d blocks; the limit is %d", total, lim.Blocks)
	}
	// Warning paths name the block as the request sent it (path[i]).
	prepared, warnings := blocks.Prepare(path, out)
	for i := range prepared {
		warnings = append(warnings, capEditable(fmt.Sprintf("%s[%d]", path, i), &prepared[i], lim)...)
	}
	return prepared, warnings, nil
}

// capEditable drops the editable mark of a block whose data is already over the
// bound an edited block has (Limits.EditBytes): the reviewer could not send it
// back. The warning says so.
func capEditable(at string, b *blocks.Block, lim Limits) []string {
	if !b.Editable || len(b.Data) <= lim.editBytes() {
		return nil
	}
	b.Editable = false
	return []string{fmt.Sprintf("%s.editable: the block's data is %d bytes, over the %d bytes an edited block may hold; the block is stored without editable", at, len(b.Data), lim.editBytes())}
}

func checkTags(tags []string, lim Limits) error {
	if len(tags) > lim.Tags {
		return fault.Limit("tags", "max_items", lim.Tags, "at most %d tags", lim.Tags)
	}
	for i, t := range tags {
		if utf8.RuneCountInString(t) > lim.TagChars {
			return fault.Limit(fmt.Sprintf("tags[%d]", i), "max_length", lim.TagChars, "a tag has at most %d characters", lim.TagChars)
		}
	}
	return nil
}

func checkAccess(a Access) (Access, error) {
	if a.Mode == "" {
		a.Mode = "public"
	}
	if !accessModes[a.Mode] {
		e := fault.Field("access.mode", "enum", "access.mode must be public or authenticated")
		e.Details["allowed"] = []string{"public", "authenticated"}
		return a, e
	}
	if len(a.AllowedIdentities) > 1000 {
		return a, fault.Limit("access.allowed_identities", "max_items", 1000, "at most 1000 allowed identities")
	}
	for i, id := range a.AllowedIdentities {
		at := fmt.Sprintf("access.allowed_identities[%d]", i)
		if !identityType[id.Type] {
			return a, fault.Field(at+".type", "enum", "%s.type must be email or domain", at)
		}
		if strings.TrimSpace(id.Value) == "" {
			return a, fault.Field(at+".value", "required", "%s.value is required", at)
		}
	}
	return a, nil
}

func checkActions(in []Action, lim Limits) ([]Action, []string, error) {
	if len(in) > lim.Actions {
		return nil, nil, fault.Limit("actions", "max_items", lim.Actions, "at most %d actions", lim.Actions)
	}
	seen := map[string]bool{}
	out := make([]Action, len(in))
	var warnings []string
	for i, a := range in {
		at := fmt.Sprintf("actions[%d]", i)
		if a.ActionID == "" {
			return nil, nil, fault.Field(at+".action_id", "required", "%s.action_id is required", at)
		}
		if !actionIDRe.MatchString(a.ActionID) {
			return nil, nil, fault.Field(at+".action_id", "format", "%s.action_id may use letters, digits and _ . : - (at most 64)", at)
		}
		if seen[a.ActionID] {
			return nil, nil, fault.Field(at+".action_id", "unique", "action_id %q is used twice", a.ActionID)
		}
		seen[a.ActionID] = true
		if a.Label == "" {
			a.Label = a.ActionID
		}
		if utf8.RuneCountInString(a.Label) > 100 {
			return nil, nil, fault.Limit(at+".label", "max_length", 100, "%s.label has at most 100 characters", at)
		}
		if a.Style != "" && !actionStyles[a.Style] {
			warnings = append(warnings, fmt.Sprintf("%s.style: %q is not a known style; use primary, secondary or danger (rendered as secondary)", at, a.Style))
		}
		out[i] = a
	}
	return out, warnings, nil
}

// futureTime reads a date-time (formats.DateTime: RFC 3339, or the same without a
// zone, read as UTC) that must lie after now; the result is in UTC.
func futureTime(field, s string, now time.Time) (time.Time, error) {
	t, ok := formats.DateTime(s)
	if !ok {
		return t, fault.Field(field, "format", "%s must be an RFC 3339 timestamp such as 2026-12-01T12:00:00Z", field)
	}
	if !t.After(now) {
		return t, fault.Field(field, "future", "%s must be in the future", field)
	}
	return t, nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
