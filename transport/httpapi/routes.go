package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Every route of the API is registered in this file, one group per area; the
// handler named beside a path is the one that serves it. The core routes exist on
// every node (New); an area's routes are registered when the node mounts the area
// with its dependencies (MountRealtime, MountDelivery, MountContent, MountTenancy).
// The pages for people (/p/…, /s/…, /assets/…) are registered by transport/web
// (web.Mount) through Server.Handle.

// routes registers the core routes.
func (s *Server) routes(reg *prometheus.Registry) {
	// Probes and the API's own description: no credential.
	s.handle("GET", "/healthz", s.health)
	s.handle("GET", "/metrics", func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
		return nil
	})
	s.handle("GET", "/v1/openapi.json", s.openapi)
	s.handle("GET", "/v1/openapi-3.0.json", s.openapi30)

	// Accounts: registration, API keys, the tenant, its audit chain (account.go).
	s.handle("POST", "/v1/auth/agent/register", s.register)
	s.handle("GET", "/v1/account/api-keys", s.requireKey(s.listKeys))
	s.handle("POST", "/v1/account/api-keys", s.requireKey(s.createKey))
	s.handle("DELETE", "/v1/account/api-keys/:id", s.requireKey(s.deleteKey))
	s.handle("GET", "/v1/tenant", s.requireKey(s.getTenant))
	s.handle("GET", "/v1/audit/verify", s.requireKey(s.verifyAudit))
	// Proof for auditors: checkpoints, proofs, the export (auditproof.go); the
	// verifier key is public.
	s.handle("GET", "/v1/audit/checkpoint", s.requireKey(s.auditCheckpoint))
	s.handle("GET", "/v1/audit/key", s.auditKey)
	s.handle("GET", "/v1/audit/proof/inclusion", s.requireKey(s.auditInclusion))
	s.handle("GET", "/v1/audit/proof/consistency", s.requireKey(s.auditConsistency))
	s.handle("GET", "/v1/audit/export", s.requireKey(s.auditExport))

	// Pages: create, read, list, change, decide, their audit (pages.go).
	s.handle("POST", "/v1/publish", s.requireKey(s.publish))
	s.handle("POST", "/v1/pages", s.requireKey(s.createDraft))
	s.handle("GET", "/v1/pages", s.requireKey(s.listPages))
	s.handle("GET", "/v1/pages/:id", s.requireKey(s.getPage))
	s.handle("PATCH", "/v1/pages/:id", s.requireKey(s.updatePage))
	s.handle("POST", "/v1/pages/:id/publish", s.requireKey(s.publishDraft))
	s.handle("POST", "/v1/pages/:id/revoke", s.requireKey(s.revoke))
	s.handle("POST", "/v1/pages/:id/renew", s.requireKey(s.renew))
	s.handle("POST", "/v1/pages/:id/actions/:actionId", s.execute) // a key, or none on a public page
	s.handle("GET", "/v1/pages/:id/audit", s.requireKey(s.pageAudit))
	s.handle("GET", "/v1/pages/:id/wait", s.requireKey(s.waitDecision)) // long-poll for the decision (wait.go)

	// Blocks of a page (blocks.go).
	s.handle("PATCH", "/v1/pages/:id/blocks", s.requireKey(s.appendBlocks))
	s.handle("PATCH", "/v1/pages/:id/blocks/:blockId", s.requireKey(s.fixBlock))
	s.handle("PUT", "/v1/pages/:id/blocks/reorder", s.requireKey(s.reorderBlocks))
	s.handle("POST", "/v1/pages/:id/blocks/insert", s.requireKey(s.insertBlock))
}

// routes registers the sign-in area's routes (MountSignIn): mailed links, OAuth,
// the session, claiming an agent's account (signin_*.go).
func (si *signinArea) routes() {
	s := si.Server
	s.handle("POST", "/v1/auth/magic-link/send", si.sendLink)
	s.handle("GET", "/v1/auth/magic-link/verify", si.verifyLinkGet)
	s.handle("POST", "/v1/auth/magic-link/verify", si.verifyLink)
	s.handle("POST", "/v1/auth/oauth/:provider", si.oauthStart)
	s.handle("GET", "/v1/auth/oauth/:provider/callback", si.oauthCallback)
	s.handle("GET", "/v1/auth/me", si.me)
	s.handle("POST", "/v1/auth/logout", si.logout)
	s.handle("POST", "/v1/auth/claim", si.claim)
	s.handle("POST", "/v1/auth/claim/key", si.claimByKey)
}

// routes registers the real-time area's routes (MountRealtime).
func (rt *realtime) routes() {
	s := rt.Server
	// Streams (SSE, or WebSocket on upgrade), the agent inbox and acks (streams.go, agent.go).
	s.handle("GET", "/v1/pages/:id/events", rt.pageEvents)
	s.handle("GET", "/v1/pages/:id/comments/stream", rt.commentStream)
	s.handle("GET", "/v1/agent/events", s.requireKey(rt.agentEvents))
	s.handle("GET", "/v1/agent/inbox", s.requireKey(rt.agentInbox))
	s.handle("GET", "/v1/agent/inbox/count", s.requireKey(rt.agentInboxCount))
	s.handle("POST", "/v1/events/:id/ack", s.requireKey(rt.ack))
	s.handle("GET", "/v1/pages/:id/agent-events", s.requireKey(rt.pageAgentEvents))

	// Comments: a key, or none on a public page (comments.go).
	s.handle("POST", "/v1/pages/:id/comments", rt.addComment)
	s.handle("GET", "/v1/pages/:id/comments", rt.listComments)
	s.handle("PATCH", "/v1/pages/:id/comments/:commentId", rt.editComment)
	s.handle("DELETE", "/v1/pages/:id/comments/:commentId", rt.deleteComment)

	// Files: presigned upload, the signed storage addresses, download (files.go).
	s.handle("POST", "/v1/pages/:id/files/presign", rt.presign)
	s.handle("PUT", "/v1/storage/upload/*path", rt.upload)
	s.handle("POST", "/v1/pages/:id/files/complete", rt.completeUpload)
	s.handle("GET", "/v1/pages/:id/files", rt.listFiles)
	s.handle("GET", "/v1/pages/:id/files/:fileId/download", rt.download)
	s.handle("GET", "/v1/storage/download/*path", rt.serveBlob)
	s.handle("DELETE", "/v1/pages/:id/files/:fileId", s.requireKey(rt.deleteFile))

	// Views and analytics (views.go).
	s.handle("POST", "/internal/pages/:id/view", rt.countView)
	s.handle("POST", "/internal/pages/:id/seen", rt.markSeen)
	s.handle("GET", "/v1/pages/:id/analytics", s.requireKey(rt.analytics))
}

// routes registers the delivery area's routes (MountDelivery): the approval chain,
// the delivery log of a page, manual redelivery (deliveries.go).
func (h *deliveryHandlers) routes() {
	s := h.s
	s.handle("GET", "/v1/pages/:id/approval", s.requireKey(h.approval))
	s.handle("GET", "/v1/pages/:id/deliveries", s.requireKey(h.list))
	s.handle("GET", "/v1/deliveries/:id", s.requireKey(h.get))
	s.handle("POST", "/v1/deliveries/:id/retry", s.requireKey(h.retry))
}

// routes registers the content area's routes (MountContent).
func (c *content) routes() {
	s := c.s
	// The block catalog's JSON Schema: no credential (schema.go).
	s.handle("GET", "/v1/schema/blocks", c.blockSchema)
	// Publishing from A2UI, AG-UI and templates (protocols.go, templates.go).
	s.handle("POST", "/v1/publish/a2ui", s.requireKey(c.publishA2UI))
	s.handle("POST", "/v1/publish/ag-ui", s.requireKey(c.publishAGUI))
	s.handle("GET", "/v1/templates", s.requireKey(c.listTemplates))
	s.handle("POST", "/v1/publish/template/:name", s.requireKey(c.publishTemplate))
	// Workflows and associations between pages (workflows.go, associations.go).
	s.handle("POST", "/v1/workflows", s.requireKey(c.createWorkflow))
	s.handle("GET", "/v1/workflows/:groupId", s.requireKey(c.getWorkflow))
	s.handle("POST", "/v1/pages/:id/associations", s.requireKey(c.associate))
	s.handle("GET", "/v1/pages/:id/associations", s.requireKey(c.listAssociations))
}

// routes registers the Slack app's routes (MountSlack, slack.go): the tenant's
// credentials, write-only, and the interactivity endpoint, which takes no key:
// Slack's request signature is its credential.
func (h *slackHandlers) routes() {
	s := h.s
	s.handle("GET", "/v1/integrations/slack", s.requireKey(h.get))
	s.handle("PUT", "/v1/integrations/slack", s.requireKey(h.put))
	s.handle("POST", "/v1/integrations/slack/interactions", h.interaction)
}

// tenancyRoutes registers the tenancy area's routes (MountTenancy).
func (s *Server) tenancyRoutes() {
	// The inbox of pages for people (inbox.go).
	s.handle("GET", "/v1/inbox", s.requireKey(s.listInbox))
	s.handle("PATCH", "/v1/inbox/:id/read", s.requireKey(s.readInbox))
	s.handle("PATCH", "/v1/inbox/:id/star", s.requireKey(s.starInbox))
	s.handle("DELETE", "/v1/inbox/:id", s.requireKey(s.archiveInbox))
	// The tenant's dashboard and quality score (tenant.go).
	s.handle("GET", "/v1/tenant/dashboard", s.requireKey(s.dashboard))
	s.handle("GET", "/v1/quality-score", s.requireKey(s.qualityScore))
	if s.tenancy.AdminToken != "" {
		s.adminRoutes()
	}
}

// adminRoutes registers the operator routes, only on a node with an admin token
// (--admin-token); `folio admin --server URL --admin-token T …` drives them (admin.go).
func (s *Server) adminRoutes() {
	s.handle("GET", "/v1/admin/tenants", s.requireAdmin(s.adminListTenants))
	s.handle("GET", "/v1/admin/tenants/:id", s.requireAdmin(s.adminShowTenant))
	s.handle("PUT", "/v1/admin/tenants/:id/plan", s.requireAdmin(s.adminSetPlan))
	s.handle("POST", "/v1/admin/tenants/:id/api-keys", s.requireAdmin(s.adminCreateKey))
	s.handle("GET", "/v1/admin/tenants/:id/audit", s.requireAdmin(s.adminExportAudit))
}
