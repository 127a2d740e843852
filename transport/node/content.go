package node

import (
	"time"

	"folio/actors/page"
	"folio/actors/workflow"
	"folio/transport/httpapi"
)

// contentArea wires the content area into the node: the block schema, A2UI / AG-UI
// and template publishing, workflows (their outlet keeps each workflow in step with
// its pages; the loop re-drives pending steps at start and every few seconds) and
// associations.
func (n *Node) contentArea(pd *page.Deps) area {
	wf := workflow.New(workflow.Deps{Store: n.Store, PageDeps: pd, Pages: n.Pages, Now: n.Config.Now})
	return area{
		outlets: []page.Outlet{wf.Outlet()},
		mount: func(api *httpapi.Server) {
			api.MountContent(httpapi.ContentDeps{Workflows: wf, TitleChars: n.Config.Limits.TitleChars})
		},
		run: func(stop <-chan struct{}) { wf.Run(5*time.Second, stop) },
	}
}
