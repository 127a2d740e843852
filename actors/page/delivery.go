package page

import (
	"fmt"

	"folio/actors/model/fault"
	"folio/actors/model/webhook"
)

// checkDelivery validates what the request sets of on_action, notify, approval_chain
// and action decisions (p already holds the request's other fields), normalises the
// approval chain into p, and returns advisory warnings. It never resolves a name, so
// publishing never waits on the network.
func checkDelivery(p *Page, req *Request, lim Limits) ([]string, error) {
	var warnings []string
	if req.Actions != nil {
		for i, a := range p.Actions {
			d, ok := normalizeDecision(a.Decision)
			if !ok {
				e := fault.Field(fmt.Sprintf("actions[%d].decision", i), "enum", "actions[%d].decision must be approve, reject or none", i)
				e.Details["allowed"] = []string{"approve", "reject", "none"}
				return nil, e
			}
			p.Actions[i].Decision = d
		}
	}
	if req.OnAction != nil && !isNull(req.OnAction) {
		ids := make([]string, len(p.Actions))
		for i, a := range p.Actions {
			ids[i] = a.ActionID
		}
		w, err := webhook.CheckOnAction(req.OnAction, ids, lim.AllowPrivateCallbacks)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	if req.Notify != nil && !isNull(req.Notify) {
		w, err := webhook.CheckNotify(req.Notify, lim.AllowPrivateCallbacks)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	if req.RequireVerified != nil {
		p.RequireVerified = *req.RequireVerified
	}
	if req.ApprovalChain != nil {
		w, err := setChain(p, req.ApprovalChain)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	return warnings, nil
}
