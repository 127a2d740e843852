package page

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"folio/actors/model/blocks"
	"folio/persistence"
)

// everyPayload is one payload of every event type the page emits, every optional
// field set.
func everyPayload() []eventData {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	comment := "ok"
	b := blocks.Block{ID: "b_1", Type: "text", Data: json.RawMessage(`{"content":"x"}`)}
	return []eventData{
		pageCreated{Status: Draft}, pagePublished{Status: Active}, PageUpdated{Fields: []string{"title"}, Version: 2},
		pageRevoked{Reason: "r"}, pageRenewed{ExpiresAt: at}, PageExpired{Reason: "timeout", ExpiredAt: at},
		PageCompleted{ActionID: "approve", Decision: DecisionApproved}, PageViewed{ViewCount: 1, UserAgent: "ua"},
		ActionExecuted{ActionID: "approve", ActionLabel: "Approve", Comment: &comment, Decision: DecisionApproved,
			FormData: json.RawMessage(`{"x":1}`), PageState: PageState{Previous: Active, Current: Completed},
			Receipt: NewReceipt(persistence.AuditRecord{Seq: 1, Hash: "sha256:ab", Entry: []byte(`{}`)}, Verdict{PageVersion: 1})},
		FormSubmitted{ActionID: "submit", FormData: json.RawMessage(`{"x":1}`)},
		ApprovalStepCompleted{StepID: "s1", StepName: "One", Decision: DecisionApproved, DecidedBy: "a@x", NextStep: "s2"},
		ApprovalChainCompleted{FinalDecision: DecisionApproved, Steps: []StepSummary{{StepID: "s1", Decision: DecisionApproved}}},
		BlocksAppended{Version: 2, NewBlocks: []blocks.Block{b}}, blockUpdated{Version: 3, Block: b},
		BlockInserted{Version: 4, Position: 0, Block: b}, blocksReordered{Version: 5, BlockIDs: []string{"b_1"}},
		commentAdded{CommentID: "cmt_1", Content: "c", AuthorName: "n", AuthorType: "user", BlockID: "b_1", ParentID: "cmt_0"},
		commentUpdated{CommentID: "cmt_1", Content: "c"}, commentDeleted{CommentID: "cmt_1"},
		FileUploaded{FileID: "file_1", Filename: "f", MimeType: "text/plain", SizeBytes: 1}, fileDeleted{FileID: "file_1", Filename: "f"},
	}
}

// TestStreamDataKeysAreInByteOrder: the stream's data objects keep the key order of
// the maps they were once encoded from (the agent log stores those bytes and
// replays re-encode in that order), so a field declared out of order fails here.
// Blocks are the blocks' own JSON and are not looked into.
func TestStreamDataKeysAreInByteOrder(t *testing.T) {
	by := &Person{Identity: "a@x", AuthMethod: AuthAPIKey}
	for _, d := range everyPayload() {
		for view, data := range map[string]any{"agent": d.stream(by), "public": publicData(d, by)} {
			b, err := json.Marshal(data)
			if err != nil {
				t.Fatal(err)
			}
			if bad := unsortedKeys(json.NewDecoder(bytes.NewReader(b))); bad != "" {
				t.Errorf("%s (%s view): key %q out of order in %s", d.EventType(), view, bad, b)
			}
		}
	}
}

// unsortedKeys walks one JSON value and returns the first object key that does not
// sort after the key before it ("" when none), skipping block values.
func unsortedKeys(dec *json.Decoder) string {
	tok, err := dec.Token()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	switch tok {
	case json.Delim('{'):
		prev := ""
		for dec.More() {
			k, _ := dec.Token()
			key := k.(string)
			if key <= prev && prev != "" {
				return key
			}
			prev = key
			if key == "newBlocks" || key == "block" {
				var skip json.RawMessage
				_ = dec.Decode(&skip)
				continue
			}
			if bad := unsortedKeys(dec); bad != "" {
				return bad
			}
		}
		_, _ = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if bad := unsortedKeys(dec); bad != "" {
				return bad
			}
		}
		_, _ = dec.Token()
	}
	return ""
}

// publicData is d's data on the page's public streams.
func publicData(d eventData, by *Person) any {
	if p, ok := d.(withPrivate); ok {
		return p.publicStream(by)
	}
	return d.stream(by)
}
