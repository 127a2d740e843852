package client_test

import (
	"testing"

	"folio/transport/client"
)

// TestInboxFiltersAndMarks: the inbox lists pages newest first and filters by
// priority and page type; read, star and archive change an entry as the listing
// then shows; the tenant, its dashboard and quality score count the pages.
func TestInboxFiltersAndMarks(t *testing.T) {
	_, c := agent(t, "inboxer")
	cx := ctx(t)
	low := approvalPage("Low")
	low.Priority = "low"
	high := approvalPage("High")
	high.Priority, high.PageType = "high", "incident"
	lowID := must(c.Publish(cx, low))(t).PageID
	highID := must(c.Publish(cx, high))(t).PageID

	all := must(c.ListInbox(cx, client.InboxFilter{}))(t)
	if all.Total != 2 || all.Entries[0].PageID != highID || all.Entries[0].Status != client.InboxUnread || all.Entries[0].PageStatus != client.StatusActive {
		t.Fatalf("ListInbox = %+v", all)
	}
	entry := all.Entries[0].ID
	if got := must(c.ListInbox(cx, client.InboxFilter{Priority: "low"}))(t); got.Total != 1 || got.Entries[0].PageID != lowID {
		t.Errorf("priority=low: %+v", got)
	}
	if got := must(c.ListInbox(cx, client.InboxFilter{PageType: "incident", Limit: 5}))(t); got.Total != 1 || got.Limit != 5 || got.Entries[0].PageType != "incident" {
		t.Errorf("pageType=incident: %+v", got)
	}

	if err := c.MarkRead(cx, entry); err != nil {
		t.Fatal(err)
	}
	if err := c.Star(cx, entry, true); err != nil {
		t.Fatal(err)
	}
	if got := must(c.ListInbox(cx, client.InboxFilter{Status: client.InboxRead}))(t); got.Total != 1 || !got.Entries[0].Starred || got.Entries[0].ID != entry {
		t.Errorf("after read and star: %+v", got)
	}
	if err := c.Star(cx, entry, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Archive(cx, entry); err != nil {
		t.Fatal(err)
	}
	if got := must(c.ListInbox(cx, client.InboxFilter{}))(t); got.Total != 1 || got.Entries[0].PageID != lowID {
		t.Errorf("the default listing after archiving: %+v", got)
	}
	if got := must(c.ListInbox(cx, client.InboxFilter{Status: client.InboxArchived}))(t); got.Total != 1 || got.Entries[0].Starred {
		t.Errorf("archived listing: %+v", got)
	}
	if err := c.MarkRead(cx, "inb_unknown"); !client.IsNotFound(err) {
		t.Errorf("an unknown entry: %v", err)
	}

	must(c.ExecuteAction(cx, lowID, "approve", client.ActionRequest{}))(t)
	ten := must(c.Tenant(cx))(t)
	if ten.Name != "inboxer" || ten.Plan != "free" || ten.Usage.PagesThisMonth != 2 || ten.TenantID == "" {
		t.Errorf("Tenant = %+v", ten)
	}
	dash := must(c.Dashboard(cx, "7d"))(t)
	if dash.Period != "7d" || dash.Metrics.TotalPages != 2 || dash.Metrics.CompletedPages != 1 || dash.Metrics.ActivePages != 1 || dash.Metrics.ApprovalRate != 1 {
		t.Errorf("Dashboard = %+v", dash)
	}
	if _, err := c.Dashboard(cx, "1y"); err == nil {
		t.Error("an unknown period was accepted")
	}
	qs := must(c.QualityScore(cx))(t)
	if qs.TenantID != ten.TenantID || qs.TotalPages != 2 || qs.TotalDecisions != 1 || qs.AcceptanceRate != 100 || qs.Period != "last_100_pages" {
		t.Errorf("QualityScore = %+v", qs)
	}
}
