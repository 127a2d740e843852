package page

import (
	"encoding/json"
	"time"

	"folio/actors/model/blocks"
)

// The stream's spelling of every event payload: the `data` object of the payload on
// the page and agent streams, in the agent log and the agent inbox. It is written
// here only.
//
// The fields of every object are declared in byte order of their keys. Payloads
// were encoded from maps once, whose keys encoding/json sorts; stored payloads,
// replays (PublicFrameOfPayload re-encodes the stored data that way) and the clients
// that compare bytes all rely on that order.

func (d pageCreated) stream(*Person) any {
	return struct {
		Status string `json:"status"`
	}{d.Status}
}

func (d pagePublished) stream(*Person) any {
	return struct {
		Status string `json:"status"`
	}{d.Status}
}

func (d PageUpdated) stream(*Person) any {
	return struct {
		Fields  []string `json:"fields"`
		Version int      `json:"version"`
	}{d.Fields, d.Version}
}

func (d pageRevoked) stream(*Person) any {
	return struct {
		Reason string `json:"reason"`
	}{d.Reason}
}

func (d pageRenewed) stream(*Person) any {
	return struct {
		ExpiresAt time.Time `json:"expiresAt"`
	}{d.ExpiresAt}
}

func (d PageExpired) stream(*Person) any {
	return struct {
		ExpiredAt time.Time `json:"expired_at"`
		Reason    string    `json:"reason"`
	}{d.ExpiredAt, d.Reason}
}

func (d PageCompleted) stream(*Person) any {
	return struct {
		ActionID string `json:"actionId"`
		Decision string `json:"decision"`
	}{d.ActionID, d.Decision}
}

func (d PageViewed) stream(*Person) any {
	return struct {
		UserAgent string `json:"user_agent"`
		ViewCount int    `json:"view_count"`
	}{d.UserAgent, d.ViewCount}
}

// actionExecutedStream is action.executed on the streams. Besides the stream's own
// actionId and actor (the person's identity) it carries the fields of the callback
// (action_id, action_label, comment, decision, form_data, page_state), which the
// agent's stream has always had. A private field is a pointer to the value: nil
// leaves its key out (the public streams' view), a pointer to a nil value writes null.
type actionExecutedStream struct {
	ActionID    string   `json:"actionId"`
	CallbackID  string   `json:"action_id"` // the same action id, as the callback spells it
	ActionLabel string   `json:"action_label"`
	Actor       string   `json:"actor"`
	Comment     **string `json:"comment,omitempty"`
	// The verdict (verdict.go): the content version and hash the decision was made
	// on, the outcome, and whether the action ended the page.
	ContentHash string           `json:"content_hash,omitempty"`
	Decision    string           `json:"decision,omitempty"` // "" only when there is none
	Final       bool             `json:"final"`
	FormData    *json.RawMessage `json:"form_data,omitempty"`
	Outcome     string           `json:"outcome"`
	PageState   pageStateStream  `json:"page_state"`
	PageVersion int              `json:"page_version,omitempty"`
	// Edits are the reviewer's corrections (edits.go): the agent's stream only.
	Edits   []Edit   `json:"edits,omitempty"`
	Receipt *Receipt `json:"receipt,omitempty"` // private: the agent's views only
}

type pageStateStream struct {
	Current  string `json:"current"`
	Previous string `json:"previous"`
}

func (d ActionExecuted) stream(by *Person) any {
	v := d.shared(by)
	v.Comment, v.FormData, v.Edits, v.Receipt = &d.Comment, &d.FormData, d.Verdict.Edits, d.Receipt
	return v
}

// publicStream is the view of the page's public streams: the private fields left out.
func (d ActionExecuted) publicStream(by *Person) any { return d.shared(by) }

// shared is what every stream's view of action.executed holds.
func (d ActionExecuted) shared(by *Person) actionExecutedStream {
	identity := ""
	if by != nil {
		identity = by.Identity
	}
	return actionExecutedStream{ActionID: d.ActionID, CallbackID: d.ActionID, ActionLabel: d.ActionLabel,
		Actor: identity, Decision: d.Decision, PageState: pageStateStream{Current: d.PageState.Current, Previous: d.PageState.Previous},
		Outcome: OutcomeOf(d.Decision), Final: !d.Verdict.Step, PageVersion: d.Verdict.PageVersion, ContentHash: d.Verdict.ContentHash}
}

// formSubmittedStream is form.submitted on the agent's stream; form_data is
// private (see actionExecutedStream). The page's public streams never carry the
// event, and would not carry the form data if they did.
type formSubmittedStream struct {
	ActionID string           `json:"action_id"`
	FormData *json.RawMessage `json:"form_data,omitempty"`
}

func (d FormSubmitted) stream(*Person) any {
	return formSubmittedStream{ActionID: d.ActionID, FormData: &d.FormData}
}

func (d FormSubmitted) publicStream(*Person) any { return formSubmittedStream{ActionID: d.ActionID} }

func (d ApprovalStepCompleted) stream(*Person) any {
	return struct {
		DecidedBy string  `json:"decided_by"`
		Decision  string  `json:"decision"`
		NextStep  *string `json:"next_step"`
		StepID    string  `json:"step_id"`
		StepName  string  `json:"step_name"`
	}{d.DecidedBy, d.Decision, orNull(d.NextStep), d.StepID, d.StepName}
}

type stepSummaryStream struct {
	Decision *string `json:"decision"`
	StepID   string  `json:"step_id"`
}

func (d ApprovalChainCompleted) stream(*Person) any {
	steps := make([]stepSummaryStream, len(d.Steps))
	for i, s := range d.Steps {
		steps[i] = stepSummaryStream{Decision: orNull(s.Decision), StepID: s.StepID}
	}
	return struct {
		FinalDecision string              `json:"final_decision"`
		StepsSummary  []stepSummaryStream `json:"steps_summary"`
	}{d.FinalDecision, steps}
}

func (d BlocksAppended) stream(*Person) any {
	return struct {
		NewBlocks []blocks.Block `json:"newBlocks"`
		Version   int            `json:"version"`
	}{d.NewBlocks, d.Version}
}

func (d blockUpdated) stream(*Person) any {
	return struct {
		Block   blocks.Block `json:"block"`
		Version int          `json:"version"`
	}{d.Block, d.Version}
}

func (d BlockInserted) stream(*Person) any {
	return struct {
		Block    blocks.Block `json:"block"`
		Position int          `json:"position"`
		Version  int          `json:"version"`
	}{d.Block, d.Position, d.Version}
}

func (d blocksReordered) stream(*Person) any {
	return struct {
		BlockIDs []string `json:"blockIds"`
		Version  int      `json:"version"`
	}{d.BlockIDs, d.Version}
}

func (d commentAdded) stream(*Person) any {
	return struct {
		AuthorName string `json:"authorName"`
		AuthorType string `json:"authorType"`
		BlockID    string `json:"block_id,omitempty"`
		LineStart  int    `json:"line_start,omitempty"`
		LineEnd    int    `json:"line_end,omitempty"`
		LineSide   string `json:"line_side,omitempty"`
		CommentID  string `json:"commentId"`
		Content    string `json:"content"`
		ParentID   string `json:"parent_id,omitempty"`
	}{d.AuthorName, d.AuthorType, d.BlockID, d.LineStart, d.LineEnd, d.LineSide, d.CommentID, d.Content, d.ParentID}
}

func (d commentUpdated) stream(*Person) any {
	return struct {
		CommentID string `json:"commentId"`
		Content   string `json:"content"`
	}{d.CommentID, d.Content}
}

func (d commentDeleted) stream(*Person) any {
	return struct {
		CommentID string `json:"commentId"`
	}{d.CommentID}
}

func (d FileUploaded) stream(*Person) any {
	return struct {
		FileID    string `json:"fileId"`
		Filename  string `json:"filename"`
		MimeType  string `json:"mimeType"`
		SizeBytes int64  `json:"sizeBytes"`
	}{d.FileID, d.Filename, d.MimeType, d.SizeBytes}
}

func (d fileDeleted) stream(*Person) any {
	return struct {
		FileID   string `json:"fileId"`
		Filename string `json:"filename"`
	}{d.FileID, d.Filename}
}

// orNull is s, or null when s is "" (absent).
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
