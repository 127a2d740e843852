package page

import "strings"

// Turn is what an approval chain awaits from one person now: MayDecide, a step open
// to a decision is assigned to them and they have not decided it; Decided, they have
// decided a step already. A person who Decided and may not decide waits for the
// others (the review page shows "Waiting for …" in place of the actions).
func (c *Chain) Turn(identity string) (mayDecide, decided bool) {
	if c == nil || identity == "" {
		return false, false
	}
	for i, s := range c.Steps {
		if hasDecided(s, identity) {
			decided = true
			continue
		}
		open := s.Status == StepPending && c.Status == ChainInProgress
		if c.Mode == ModeSequential {
			open = i == c.current()
		}
		if open && assigned(s, identity) {
			mayDecide = true
		}
	}
	return mayDecide, decided
}

// Awaiting is whom an active page waits on for a decision now: the assignees of
// the chain's open steps who have not decided them (Steps names those steps), or,
// on a page without an approval chain that carries actions, anyone of its
// workspace (Anyone). A page that is not active, or whose chain is decided,
// awaits nobody.
type Awaiting struct {
	Assignees []string // lower-cased, each once
	Steps     []string // the open steps' names (step ids when unnamed), in order
	Anyone    bool
}

// AwaitingDecision is what p awaits (Awaiting).
func (p *Page) AwaitingDecision() Awaiting {
	var a Awaiting
	if p == nil || p.Status != Active {
		return a
	}
	c := p.Approval
	if c == nil {
		a.Anyone = len(p.Actions) > 0
		return a
	}
	seen := map[string]bool{}
	for _, i := range c.open() {
		s := c.Steps[i]
		name := s.Name
		if name == "" {
			name = s.StepID
		}
		a.Steps = append(a.Steps, name)
		for _, who := range s.Assignees {
			low := strings.ToLower(who)
			if who == "" || seen[low] || hasDecided(s, who) {
				continue
			}
			seen[low] = true
			a.Assignees = append(a.Assignees, low)
		}
	}
	return a
}
