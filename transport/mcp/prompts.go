package foliomcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// prompts: one for drafting an approval request well.
func (f *folio) prompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "draft_approval_request", Title: "Ask a person to approve something",
		Description: "Drafts a clear approval page for a decision you need from a person, then asks with request_approval.",
		Arguments: []*mcp.PromptArgument{
			{Name: "decision", Description: "what you want to do and need approved, in one sentence", Required: true},
			{Name: "context", Description: "what the person needs to know to decide: evidence, risks, alternatives"},
			{Name: "approver", Description: "the e-mail address of the person who should decide (optional)"},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			text := "I need a person's approval before I go on. What I want to do: " + a["decision"] + "\n\n"
			if a["context"] != "" {
				text += "Context: " + a["context"] + "\n\n"
			}
			text += "Draft the approval page, then call request_approval with it:\n" +
				"- title: the decision as a question the person can answer yes or no (at most 200 characters);\n" +
				"- summary: one or two sentences with what happens if they approve, and if they reject;\n" +
				"- blocks: the evidence, one idea per block: a text block (markdown) for the reasoning, a table or key_value block for numbers, " +
				"a diff or code block for changes, a callout block for risks (read folio://schema/blocks for the fields);\n" +
				"- actions: Approve (primary) and Reject (danger), unless other choices fit better;\n"
			if a["approver"] != "" {
				text += "- allowed_emails: [\"" + a["approver"] + "\"], so only they can open and decide it (they sign in by e-mail);\n"
			}
			text += "Then tell me the decision, who made it, and their comment."
			return &mcp.GetPromptResult{Description: "Drafting an approval request",
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
		})
}
