package web

// mountUsage registers the dashboard's usage screen (to be built).
func (s *Site) mountUsage(r Router) {}
