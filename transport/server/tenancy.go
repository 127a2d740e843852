package server

import "folio/actors/page"

// tenancyArea wires issue "Tenancy" into the node.
func (n *Node) tenancyArea(pd *page.Deps) area { return area{} }
