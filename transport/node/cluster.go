package node

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/bus"
)

// openBus joins the node to the others sharing its store: on a shared store
// (PostgreSQL) a bus always runs, so streams on this node see what other nodes
// commit (by NATS doorbells when cfg.Bus names them, else by the periodic check
// alone); on a store of its own (bbolt) there is nobody to hear from.
func (n *Node) openBus() error {
	cfg := n.Config.Bus
	if !n.Store.Shared() {
		if cfg.Enabled() {
			return errors.New("--nats and --nats-listen join nodes that share one store: give them --store postgres://…")
		}
		return nil
	}
	cfg.Log = n.Config.Log
	b, err := bus.Open(cfg)
	if err != nil {
		return fmt.Errorf("join the cluster: %w", err)
	}
	n.bus = b
	return nil
}

// clusterArea rings the doorbells of every commit and lets page actors hear other
// nodes' (mailboxes are wired in realtimeArea).
func (n *Node) clusterArea(pd *page.Deps) area {
	if n.bus == nil {
		return area{}
	}
	pd.Peers = bus.PagePeers{Bus: n.bus, Store: n.Store, Pages: n.Pages}
	b := n.bus
	n.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_cluster_peers",
		Help: "Other nodes whose NATS servers this node's embedded server is routed to (-1: an external NATS cluster, or none)."},
		func() float64 { return float64(b.Peers()) }))
	// Credentials other nodes revoke end the streams they opened here within a
	// check (new requests read the store: tenant.Keyring, people.Directory).
	recheck := func(stop <-chan struct{}) {
		registry.Every(b.Check(), stop, func() { n.Keys.Recheck(); n.People.Recheck() })
	}
	return area{outlets: []page.Outlet{bus.Outlet{Bus: n.bus}}, run: recheck, close: n.bus.Close}
}
