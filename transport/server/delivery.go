package server

import "folio/actors/page"

// deliveryArea wires issue "Delivery" into the node.
func (n *Node) deliveryArea(pd *page.Deps) area { return area{} }
