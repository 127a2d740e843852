package client_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/transport/client"
)

// TestAPageLivesItsWholeLifeThroughTheClient: register, publish, read, list,
// update, append/fix/reorder/insert blocks, comment (anonymously, with the edit
// token), upload a file and download the same bytes, decide, and read the audit
// trail, every step through the typed client against a real node.
func TestAPageLivesItsWholeLifeThroughTheClient(t *testing.T) {
	e, c := agent(t, "lifecycle")
	cx := ctx(t)

	me := must(c.Me(cx))(t)
	if me.Type != "agent" || me.TenantID == "" || me.Email != "" {
		t.Errorf("Me = %+v", me)
	}

	req := approvalPage("Deploy v2.4.1?")
	req.Summary, req.Priority, req.Tags = "Release train 42", "high", []string{"deploy", "prod"}
	pub := must(c.Publish(cx, req))(t)
	if pub.Status != client.StatusActive || pub.PageURL == "" || pub.ShortURL == "" || pub.ExpiresAt.IsZero() || len(pub.Warnings) != 0 {
		t.Fatalf("Publish = %+v", pub)
	}
	id := pub.PageID

	p := must(c.GetPage(cx, id))(t)
	if p.Title != req.Title || p.Priority != "high" || p.CreatedBy != "agent:lifecycle" || len(p.Blocks) != 1 ||
		len(p.Actions) != 2 || p.Access.Mode != "public" || !slices.Equal(p.Tags, req.Tags) || p.Version != 1 || p.ApprovalChain != nil {
		t.Errorf("GetPage = %+v", p)
	}
	if data, _ := p.Blocks[0].Data.(map[string]any); data["content"] != "All checks passed." || !strings.HasPrefix(p.Blocks[0].ID, "b_0_") {
		t.Errorf("block read back = %+v", p.Blocks[0])
	}

	list := must(c.ListPages(cx, client.PageFilter{Status: client.StatusActive, PageType: "approval", Limit: 10}))(t)
	if list.Total != 1 || list.Limit != 10 || list.Pages[0].PageID != id {
		t.Errorf("ListPages = %+v", list)
	}

	up := must(c.UpdatePage(cx, id, client.PageUpdate{Title: client.Ptr("Deploy v2.4.2?"), Tags: &[]string{}}))(t)
	if up.Title != "Deploy v2.4.2?" || len(up.Tags) != 0 || up.Summary != req.Summary {
		t.Errorf("UpdatePage = %+v", up.Page)
	}

	app := must(c.AppendBlocks(cx, id, []client.Block{
		{Type: "code", ID: "diff", Data: map[string]any{"content": "+ replicas: 3", "language": "yaml"}},
		{Type: "callout", Data: map[string]any{"content": "Rollback is automatic.", "style": "info"}},
	}))(t)
	if app.AppendedBlocks != 2 || app.TotalBlocks != 3 || app.AppendedBlockIDs[0] != "diff" || app.Version <= up.Version {
		t.Errorf("AppendBlocks = %+v", app)
	}
	fix := must(c.FixBlock(cx, id, "diff", client.BlockPatch{Title: client.Ptr("The change")}))(t)
	if data, _ := fix.Block.Data.(map[string]any); data["title"] != "The change" || fix.Version != app.Version+1 {
		t.Errorf("FixBlock = %+v", fix)
	}
	order := must(c.ReorderBlocks(cx, id, []string{"diff"}))(t)
	if order.BlockIDs[0] != "diff" || order.TotalBlocks != 3 {
		t.Errorf("ReorderBlocks = %+v", order)
	}
	ins := must(c.InsertBlock(cx, id, 0, client.Block{Type: "divider", Data: map[string]any{}}))(t)
	if ins.BlockIDs[0] != ins.BlockID || ins.TotalBlocks != 4 || ins.BlockIDs[1] != "diff" {
		t.Errorf("InsertBlock = %+v", ins)
	}

	// A person holding the link comments without a key, then edits and deletes with
	// the edit token; the agent replies with its key.
	anon := client.New(e.Srv.URL, "")
	cm := must(anon.AddComment(cx, id, client.CommentRequest{Content: "Looks fine", AuthorName: "ann", BlockID: "diff"}))(t)
	if cm.EditToken == "" || cm.AuthorType != "user" || cm.BlockID != "diff" {
		t.Fatalf("AddComment = %+v", cm)
	}
	reply := must(c.AddComment(cx, id, client.CommentRequest{Content: "Thanks", AuthorType: "agent", ParentID: cm.ID}))(t)
	ed := must(anon.EditComment(cx, id, cm.ID, client.CommentEdit{Content: "Looks fine to me", EditToken: cm.EditToken}))(t)
	if ed.Content != "Looks fine to me" || ed.UpdatedAt.IsZero() {
		t.Errorf("EditComment = %+v", ed)
	}
	if err := anon.DeleteComment(cx, id, reply.ID, client.CommentDelete{DeleterIdentity: "ann"}); !client.IsForbidden(err) {
		t.Errorf("a stranger deleting the agent's comment: %v", err)
	}
	if err := anon.DeleteComment(cx, id, cm.ID, client.CommentDelete{EditToken: cm.EditToken}); err != nil {
		t.Fatal(err)
	}
	cl := must(anon.ListComments(cx, id, client.ListOptions{Limit: 10}))(t)
	if cl.Total != 1 || cl.Comments[0].ID != reply.ID || cl.Comments[0].ParentID != cm.ID || cl.Comments[0].EditToken != "" {
		t.Errorf("ListComments = %+v", cl)
	}

	// A file in one call, and the same bytes back.
	content := []byte("hello, folio\n")
	f := must(c.Upload(cx, id, "notes.txt", "text/plain", bytes.NewReader(content), int64(len(content)), "deploy-bot"))(t)
	if f.Filename != "notes.txt" || f.SizeBytes != int64(len(content)) || f.UploadedBy != "deploy-bot" || f.PageID != id || f.UploadType != "agent" {
		t.Errorf("Upload = %+v", f)
	}
	files := must(anon.ListFiles(cx, id))(t)
	if len(files.Files) != 1 || files.Files[0].ID != f.ID || files.Files[0].MimeType != "text/plain" {
		t.Errorf("ListFiles = %+v", files)
	}
	addr := must(c.DownloadURL(cx, id, f.ID))(t)
	if !strings.HasPrefix(addr, e.Srv.URL+"/v1/storage/download/") {
		t.Errorf("DownloadURL = %s", addr)
	}
	rc := must(anon.Download(cx, id, f.ID))(t)
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, content) {
		t.Errorf("Download = %q, %v; want %q", got, err, content)
	}
	if _, err := c.DownloadURL(cx, id, "file_missing"); !client.IsNotFound(err) {
		t.Errorf("DownloadURL of a missing file: %v", err)
	}
	if _, err := c.Upload(cx, id, "short.txt", "text/plain", strings.NewReader("abc"), 10, ""); err == nil {
		t.Error("an upload shorter than its declared size succeeded")
	}

	ex := must(c.ExecuteAction(cx, id, "approve", client.ActionRequest{Actor: &client.ActionActor{Identity: "ann@example.com"}, Comment: "LGTM"}))(t)
	if ex.Status != "executed" || ex.ActionID != "approve" || ex.PageState != (client.PageState{Previous: "active", Current: "completed"}) || ex.ExecutedAt.IsZero() {
		t.Errorf("ExecuteAction = %+v", ex)
	}
	if p := must(c.GetPage(cx, id))(t); p.Status != client.StatusCompleted || p.Decision != "approved" || p.CompletedAt.IsZero() || p.Stats.ActionCount != 1 {
		t.Errorf("page after the decision = %+v", p)
	}

	audit := must(c.PageAudit(cx, id, 1, 200))(t)
	var types []string
	for _, it := range audit.Items {
		types = append(types, it.EventType)
		if !strings.HasPrefix(it.ChainHash, "sha256:") || it.Timestamp.IsZero() {
			t.Errorf("audit entry %+v", it)
		}
	}
	for _, want := range []string{"page.created", "page.published", "file.uploaded", "action.executed", "page.completed"} {
		if !slices.Contains(types, want) {
			t.Errorf("audit lacks %s: %v", want, types)
		}
	}
	if audit.Total != len(audit.Items) || audit.PerPage != 200 || audit.Page != 1 {
		t.Errorf("audit window = total %d page %d per_page %d, %d items", audit.Total, audit.Page, audit.PerPage, len(audit.Items))
	}
	if two := must(c.PageAudit(cx, id, 2, 2))(t); len(two.Items) != 2 || two.Items[0].EventID != audit.Items[2].EventID {
		t.Errorf("audit page 2 of 2 = %+v", two.Items)
	}
}

// TestDraftsRevokeAndRenew: a draft is published with overrides; an active page is
// renewed to a later expiry and revoked; a revoked page cannot be renewed (409).
func TestDraftsRevokeAndRenew(t *testing.T) {
	_, c := agent(t, "drafter")
	cx := ctx(t)
	d := must(c.CreateDraft(cx, approvalPage("Draft")))(t)
	if d.Status != client.StatusDraft || d.CreatedAt.IsZero() {
		t.Fatalf("CreateDraft = %+v", d)
	}
	if p := must(c.GetPage(cx, d.PageID))(t); p.Status != client.StatusDraft || !p.PublishedAt.IsZero() {
		t.Errorf("draft read back: %+v", p)
	}
	pub := must(c.PublishDraft(cx, d.PageID, client.PageUpdate{Title: client.Ptr("Final"), Priority: client.Ptr("urgent")}))(t)
	if pub.Status != client.StatusActive || pub.PublishedAt.IsZero() || pub.PageURL == "" {
		t.Fatalf("PublishDraft = %+v", pub)
	}
	if p := must(c.GetPage(cx, d.PageID))(t); p.Title != "Final" || p.Priority != "urgent" {
		t.Errorf("the overrides were not applied: %+v", p)
	}
	later := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	rn := must(c.RenewPage(cx, d.PageID, later))(t)
	if rn.Status != client.StatusActive || !rn.ExpiresAt.Equal(later) {
		t.Errorf("RenewPage = %+v, want expiry %s", rn, later)
	}
	rv := must(c.RevokePage(cx, d.PageID, "superseded"))(t)
	if rv.Status != client.StatusRevoked || rv.RevokedAt.IsZero() {
		t.Errorf("RevokePage = %+v", rv)
	}
	if _, err := c.RenewPage(cx, d.PageID, time.Time{}); !client.IsConflict(err) {
		t.Errorf("renewing a revoked page: %v", err)
	}
	if _, err := c.PublishDraft(cx, d.PageID, client.PageUpdate{}); !client.IsConflict(err) {
		t.Errorf("publishing a revoked page: %v", err)
	}
}
