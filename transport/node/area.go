package node

import (
	"folio/actors/page"
	"folio/transport/httpapi"
	"folio/transport/web"
)

// area is one slice of behaviour wired into the node: real-time streams, delivery,
// content, tenancy. Each has its own file (realtime.go, delivery.go, content.go,
// tenancy.go) that builds its actors and returns what the node must plug in.
type area struct {
	outlets []page.Outlet              // consume committed page events
	mount   func(api *httpapi.Server)  // register HTTP routes
	site    func(c *web.Config)        // hand the pages for people what they share with the routes
	run     func(stop <-chan struct{}) // a background loop, stopped on Close
	close   func()                     // after the loops stopped, before the actors
}
