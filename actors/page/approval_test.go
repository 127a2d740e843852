package page

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

func chainOf(t *testing.T, raw string) *Chain {
	t.Helper()
	p := &Page{Actions: []Action{{ActionID: "approve"}}}
	if _, err := setChain(p, json.RawMessage(raw)); err != nil {
		t.Fatal(err)
	}
	return p.Approval
}

func code(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

func TestParallelChainNeedsEveryStep(t *testing.T) {
	c := chainOf(t, `{"mode":"parallel","steps":[{"assignees":["a","b","c"],"min_approvals":2},{"assignees":["d"]}]}`)
	now := time.Now()
	if done, err := c.decide("d", DecisionApproved, "approve", nil, now); err != nil || len(done) != 1 || done[0] != 1 {
		t.Fatalf("d: %v %v", done, err)
	}
	if done, err := c.decide("a", DecisionApproved, "approve", nil, now); err != nil || len(done) != 0 || c.Status != ChainInProgress {
		t.Fatalf("a: %v %v %s", done, err, c.Status)
	}
	if _, err := c.decide("a", DecisionApproved, "approve", nil, now); code(err) != fault.Conflict {
		t.Errorf("a twice: %v", err)
	}
	if _, err := c.decide("d", DecisionApproved, "approve", nil, now); code(err) != fault.Forbidden {
		t.Errorf("d on a finished step: %v, want 403 (no open step of theirs)", err)
	}
	if done, err := c.decide("b", DecisionApproved, "approve", nil, now); err != nil || len(done) != 1 || c.Status != DecisionApproved {
		t.Fatalf("b: %v %v %s", done, err, c.Status)
	}
	v := c.View()
	if v.CurrentStep != nil || v.Steps[0].DecidedBy != "b" {
		t.Errorf("view = %+v", v)
	}
	data := c.completed()
	if data.FinalDecision != DecisionApproved {
		t.Errorf("chain data = %v", data)
	}
}

func TestSequentialRejectionSkipsTheRest(t *testing.T) {
	c := chainOf(t, `{"steps":[{"assignees":["a"]},{"assignees":["b"]},{"assignees":["c"]}]}`)
	now := time.Now()
	if _, err := c.decide("a", DecisionApproved, "approve", nil, now); err != nil {
		t.Fatal(err)
	}
	if d := c.stepCompleted(0); d.NextStep != "step_2" {
		t.Errorf("next_step = %v", d.NextStep)
	}
	if _, err := c.decide("c", DecisionRejected, "reject", nil, now); code(err) != fault.Forbidden {
		t.Errorf("c before its step: %v", err)
	}
	if _, err := c.decide("b", DecisionRejected, "reject", nil, now); err != nil {
		t.Fatal(err)
	}
	if c.Status != DecisionRejected || c.Steps[2].Status != StepSkipped || c.stepCompleted(1).NextStep != "" {
		t.Errorf("after the rejection: %+v", c)
	}
	sum := c.completed().Steps
	if sum[2].Decision != "" || sum[1].Decision != DecisionRejected {
		t.Errorf("summary = %v", sum)
	}
}

func TestFormFieldsAreFoundInNestedBlocks(t *testing.T) {
	form := `{"type":"form","data":{"fields":[{"field_id":"x","type":"number"}]}}`
	bs := []blocks.Block{
		{Type: "text", Data: json.RawMessage(`{"content":"hi"}`)},
		{Type: "tab", Data: json.RawMessage(`{"tabs":[{"label":"A","blocks":[{"type":"group","data":{"blocks":[` + form + `]}}]}]}`)},
	}
	fields, ok := formFields(bs)
	if !ok || len(fields) != 1 || fields[0].FieldID != "x" {
		t.Fatalf("fields = %v %v", fields, ok)
	}
	if _, ok := formFields(bs[:1]); ok {
		t.Error("a page without forms has a form")
	}
	if err := checkFormData(fields, json.RawMessage(`{"x":"1"}`)); code(err) != fault.Invalid {
		t.Errorf("string for a number: %v", err)
	}
	if err := checkFormData(fields, json.RawMessage(`{"x":1}`)); err != nil {
		t.Errorf("valid: %v", err)
	}
}
