package page

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
