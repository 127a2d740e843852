package web

// mountMembers registers the dashboard's members screen (to be built).
func (s *Site) mountMembers(r Router) {}
