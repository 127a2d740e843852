package web

// mountDeliveries registers the dashboard's deliveries screen (to be built).
func (s *Site) mountDeliveries(r Router) {}
