package server

import "folio/actors/page"

// contentArea wires issue "Content" into the node.
func (n *Node) contentArea(pd *page.Deps) area { return area{} }
