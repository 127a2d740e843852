package node

import (
	"time"

	"folio/actors/inbox"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/httpapi"
	"folio/transport/web"
)

// tenancyArea wires tenancy into the node: the inbox outlet (entries,
// dashboard counters and the quality window, written in every page commit), one
// InboxActor per tenant for reading-state changes, the plan book, and the HTTP
// routes with the rate-limit guard and the monthly quota.
func (n *Node) tenancyArea(pd *page.Deps) area {
	cfg := n.Config
	book := tenant.NewBook(n.Store, tenant.NewPlanSet(cfg.PlanLimits), cfg.LimiterEntries)
	if cfg.EnforceLimits {
		// The plan's storage quota, checked by pages when files are stored.
		pd.StorageQuota = func(tenantID string) int64 {
			// A store that did not answer leaves the quota unknown (0: unchecked);
			// the commit that would store the file needs the same store anyway.
			p, _, _ := book.Limits(tenantID)
			return p.StorageBytes
		}
	}
	inboxes := registry.Start(n.System, "inbox", inbox.NewProducer(&inbox.Deps{Store: n.Store, Idle: cfg.IdleAfter}), registry.Options{Timeout: 10 * time.Second})
	var api *httpapi.Server
	return area{
		outlets: []page.Outlet{&inbox.Outlet{Bell: n.bell}},
		mount: func(s *httpapi.Server) {
			api = s
			s.MountTenancy(httpapi.TenancyDeps{
				Inbox: inboxes, Book: book, Enforce: cfg.EnforceLimits,
				AnonPerMinute: cfg.AnonPerMinute, RegisterPerMinute: cfg.RegisterPerMinute,
				PersonPerMinute: cfg.PersonPerMinute, MaxBuckets: cfg.LimiterEntries, AdminToken: cfg.AdminToken,
			})
		},
		site: func(c *web.Config) { c.Inboxes, c.Plans, c.EnforceLimits = inboxes, book, cfg.EnforceLimits },
		// Idle buckets are dropped every half minute, so limiter memory follows the
		// clients active in the last minute (and never exceeds LimiterEntries).
		run: func(stop <-chan struct{}) {
			t := time.NewTicker(30 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					if api != nil {
						api.SweepLimiters()
					}
				}
			}
		},
	}
}
