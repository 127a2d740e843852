// Command oapiclient is built by TestAGeneratedGoClientPublishesActsAndReadsComments
// against the client oapi-codegen generates from GET /v1/openapi-3.0.json (package
// folioapi, written beside this file by the test). It registers an agent, publishes
// a page, comments on it, approves it and reads the comments back, printing one line
// per step; any step that does not get its documented success status exits 1.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"gen/folioapi"
)

func main() {
	ctx := context.Background()
	c, err := folioapi.NewClientWithResponses(os.Args[1])
	check(err)

	reg, err := c.RegisterAgentWithResponse(ctx, folioapi.RegisterAgentJSONRequestBody{Name: "generated-client"})
	check(err)
	expect(reg.HTTPResponse, reg.Body, reg.JSON201 != nil)
	key := reg.JSON201.ApiKey
	auth := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	fmt.Println("registered", reg.JSON201.TenantId)

	summary, approve, label := "Built by a generated client", "approve", "Approve"
	blocks := []folioapi.BlockInput{{Type: "text", Data: map[string]any{"content": "From oapi-codegen."}}}
	actions := []folioapi.ActionInput{{ActionId: approve, Label: &label}}
	pub, err := c.PublishPageWithResponse(ctx, folioapi.PublishPageJSONRequestBody{
		Title: "Generated", Summary: &summary, Blocks: &blocks, Actions: &actions}, auth)
	check(err)
	expect(pub.HTTPResponse, pub.Body, pub.JSON201 != nil)
	page := pub.JSON201.PageId
	fmt.Println("published", page, pub.JSON201.Status)

	name := "Ada"
	com, err := c.AddCommentWithResponse(ctx, page, folioapi.AddCommentJSONRequestBody{Content: "Looks right.", AuthorName: &name}, auth)
	check(err)
	expect(com.HTTPResponse, com.Body, com.JSON201 != nil)
	fmt.Println("commented", com.JSON201.Id)

	comment := "Approved by the generated client"
	act, err := c.ExecuteActionWithResponse(ctx, page, approve, folioapi.ExecuteActionJSONRequestBody{Comment: &comment}, auth)
	check(err)
	expect(act.HTTPResponse, act.Body, act.JSON200 != nil)
	fmt.Println("acted", act.JSON200.ActionId, act.JSON200.PageState.Current)

	again, err := c.ExecuteActionWithResponse(ctx, page, approve, folioapi.ExecuteActionJSONRequestBody{}, auth)
	check(err)
	expect(again.HTTPResponse, again.Body, again.JSON409 != nil)
	fmt.Println("conflict", again.JSON409.Error.Code)

	list, err := c.ListCommentsWithResponse(ctx, page, nil, auth)
	check(err)
	expect(list.HTTPResponse, list.Body, list.JSON200 != nil)
	for _, cm := range list.JSON200.Comments {
		fmt.Println("comment", cm.AuthorName, cm.Content)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func expect(res *http.Response, body []byte, ok bool) {
	if !ok {
		fmt.Fprintf(os.Stderr, "%s %s: %d %s\n", res.Request.Method, res.Request.URL.Path, res.StatusCode, body)
		os.Exit(1)
	}
}
