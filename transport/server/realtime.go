package server

import "folio/actors/page"

// realtimeArea wires issue "Realtime" into the node.
func (n *Node) realtimeArea(pd *page.Deps) area { return area{} }
