package web

// mountPages registers the dashboard's pages screen (to be built).
func (s *Site) mountPages(r Router) {}
