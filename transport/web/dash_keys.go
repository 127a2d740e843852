package web

// mountKeys registers the dashboard's keys screen (to be built).
func (s *Site) mountKeys(r Router) {}
