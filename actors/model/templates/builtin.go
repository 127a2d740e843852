package templates

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"folio/actors/model/blocks"
)

// The built-in templates. Each build function receives checked values and returns
// blocks built as Go data; variables land in JSON string values only, and in
// Markdown fields (text, callout, rich_text content) only through md.

var priorities = []string{"low", "normal", "high", "urgent"}

func approval() *Template {
	return &Template{
		Name:        "approval",
		Description: "A generic yes/no decision: what is asked, why, and the details a reviewer needs.",
		Variables: []Variable{
			{Key: "title", Label: "Title", Required: true, Type: TString, Description: "The question, e.g. \"Grant Ana access to billing?\""},
			{Key: "description", Label: "Description", Type: TText, Description: "Context for the reviewer (shown as text; Markdown is not interpreted)"},
			{Key: "details", Label: "Details", Type: tMap, Description: "Labelled facts, e.g. {\"Account\": \"acme\", \"Seats\": 12}"},
			{Key: "requested_by", Label: "Requested by", Type: TString},
			{Key: "due_at", Label: "Decision due", Type: tDateTime, Description: "Shown as a countdown"},
			{Key: "approve_label", Label: "Approve button", Type: TString, Default: "Approve"},
			{Key: "reject_label", Label: "Reject button", Type: TString, Default: "Reject"},
			{Key: "priority", Label: "Priority", Type: tEnum, Options: priorities, Default: "normal"},
		},
		build: func(v values) Page {
			var bs []blocks.Block
			if d := v.str("description"); d != "" {
				bs = append(bs, block("text", map[string]any{"content": md(d)}))
			}
			pairs := pairsOf(v.pairs("details"))
			if r := v.str("requested_by"); r != "" {
				pairs = append(pairs, kv("Requested by", r))
			}
			if len(pairs) > 0 {
				bs = append(bs, block("key_value", map[string]any{"title": "Details", "pairs": pairs}))
			}
			if due := v.str("due_at"); due != "" {
				bs = append(bs, block("countdown", map[string]any{"title": "Decision due", "target": due,
					"expired_message": "The decision is overdue.", "style": "warning"}))
			}
			return Page{
				Title: v.str("title"), PageType: "approval", Summary: clip(v.str("description"), 500),
				Priority: v.str("priority"), Blocks: bs,
				Actions: []Action{{"approve", v.str("approve_label"), "primary"}, {"reject", v.str("reject_label"), "danger"}},
			}
		},
	}
}

func deployReview() *Template {
	return &Template{
		Name:        "deploy_review",
		Description: "Approve or reject a deployment: what ships where, its changes, test results and rollback plan.",
		Variables: []Variable{
			{Key: "service", Label: "Service", Required: true, Type: TString},
			{Key: "version", Label: "Version", Required: true, Type: TString, Description: "e.g. v2.4.1 or a commit SHA"},
			{Key: "environment", Label: "Environment", Required: true, Type: tEnum, Options: []string{"development", "staging", "production"}},
			{Key: "changes", Label: "Changes", Type: tList, Description: "One line per change"},
			{Key: "risk", Label: "Risk", Type: tEnum, Options: []string{"low", "medium", "high"}},
			{Key: "requested_by", Label: "Requested by", Type: TString},
			{Key: "tests_passed", Label: "Tests passed", Type: tInteger},
			{Key: "tests_failed", Label: "Tests failed", Type: tInteger},
			{Key: "coverage", Label: "Coverage (%)", Type: TNumber},
			{Key: "diff", Label: "Diff", Type: TText, Description: "A unified diff, shown as code"},
			{Key: "rollback_plan", Label: "Rollback plan", Type: TText},
			{Key: "commit_url", Label: "Commit or pull request", Type: TURL},
			{Key: "pipeline_url", Label: "Pipeline run", Type: TURL},
		},
		build: func(v values) Page {
			env := v.str("environment")
			pairs := []map[string]any{kv("Service", v.str("service")), kv("Version", v.str("version")), kv("Environment", env)}
			if env == "production" {
				pairs[2]["badge"] = "warning"
			}
			if r := v.str("risk"); r != "" {
				p := kv("Risk", r)
				p["badge"] = map[string]string{"low": "success", "medium": "warning", "high": "error"}[r]
				pairs = append(pairs, p)
			}
			if r := v.str("requested_by"); r != "" {
				pairs = append(pairs, kv("Requested by", r))
			}
			bs := []blocks.Block{block("key_value", map[string]any{"title": "Deployment", "pairs": pairs})}
			if env == "production" {
				bs = append(bs, block("callout", map[string]any{"style": "warning", "content": "This deploys to **production**."}))
			}
			var items []map[string]any
			if n, ok := v.num("tests_passed"); ok {
				items = append(items, map[string]any{"label": "Tests passed", "value": n.f, "trend": "flat"})
			}
			if n, ok := v.num("tests_failed"); ok {
				trend := "flat"
				if n.f > 0 {
					trend = "down"
				}
				items = append(items, map[string]any{"label": "Tests failed", "value": n.f, "trend": trend})
			}
			if n, ok := v.num("coverage"); ok {
				items = append(items, map[string]any{"label": "Coverage", "value": n.text + "%"})
			}
			if len(items) > 0 {
				bs = append(bs, block("metric", map[string]any{"title": "Checks", "items": items}))
			}
			if ch := v.list("changes"); len(ch) > 0 {
				bs = append(bs, block("text", map[string]any{"title": "Changes", "content": bulletList(ch)}))
			}
			if d := v.str("diff"); d != "" {
				bs = append(bs, block("code", map[string]any{"title": "Diff", "language": "diff", "content": d}))
			}
			if rb := v.str("rollback_plan"); rb != "" {
				bs = append(bs, block("callout", map[string]any{"title": "Rollback plan", "style": "info", "content": md(rb)}))
			}
			if l := links(v, "commit_url", "Commit", "pipeline_url", "Pipeline run"); l != nil {
				bs = append(bs, *l)
			}
			priority := "normal"
			if env == "production" {
				priority = "high"
			}
			return Page{
				Title:    fmt.Sprintf("Deploy %s %s to %s?", v.str("service"), v.str("version"), env),
				PageType: "deploy_review", Priority: priority, Blocks: bs,
				Summary: fmt.Sprintf("%s %s → %s", v.str("service"), v.str("version"), env),
				Actions: []Action{{"approve", "Approve deploy", "primary"}, {"reject", "Reject", "danger"}},
			}
		},
	}
}

var severityStyle = map[string]string{"sev1": "error", "sev2": "error", "sev3": "warning", "sev4": "info"}
var severityPriority = map[string]string{"sev1": "urgent", "sev2": "high", "sev3": "normal", "sev4": "low"}

func incidentReport() *Template {
	return &Template{
		Name:        "incident_report",
		Description: "Report an incident for acknowledgement: severity, status, impact, timeline and root cause.",
		Variables: []Variable{
			{Key: "title", Label: "Title", Required: true, Type: TString},
			{Key: "severity", Label: "Severity", Required: true, Type: tEnum, Options: []string{"sev1", "sev2", "sev3", "sev4"}},
			{Key: "summary", Label: "Summary", Required: true, Type: TText},
			{Key: "started_at", Label: "Started at", Required: true, Type: tDateTime},
			{Key: "status", Label: "Status", Type: tEnum, Options: []string{"investigating", "identified", "monitoring", "resolved"}, Default: "investigating"},
			{Key: "resolved_at", Label: "Resolved at", Type: tDateTime},
			{Key: "impact", Label: "Impact", Type: TText},
			{Key: "affected_services", Label: "Affected services", Type: tList},
			{Key: "root_cause", Label: "Root cause", Type: TText},
			{Key: "owner", Label: "Incident owner", Type: TString},
			{Key: "owner_email", Label: "Owner e-mail", Type: tEmail},
			{Key: "dashboard_url", Label: "Dashboard", Type: TURL},
			{Key: "runbook_url", Label: "Runbook", Type: TURL},
		},
		build: func(v values) Page {
			sev, status := v.str("severity"), v.str("status")
			bs := []blocks.Block{block("callout", map[string]any{
				"title": fmt.Sprintf("%s · %s", strings.ToUpper(sev), status), "style": severityStyle[sev], "content": md(v.str("summary"))})}
			pairs := []map[string]any{kv("Severity", strings.ToUpper(sev)), kv("Status", status), kv("Started", v.str("started_at"))}
			pairs[0]["badge"] = severityStyle[sev]
			if r := v.str("resolved_at"); r != "" {
				pairs = append(pairs, kv("Resolved", r))
			}
			if o := v.str("owner"); o != "" {
				pairs = append(pairs, kv("Owner", o))
			}
			if e := v.str("owner_email"); e != "" {
				pairs = append(pairs, kv("Owner e-mail", e))
			}
			bs = append(bs, block("key_value", map[string]any{"title": "Incident", "pairs": pairs}))
			if im := v.str("impact"); im != "" {
				bs = append(bs, block("text", map[string]any{"title": "Impact", "content": md(im)}))
			}
			if s := v.list("affected_services"); len(s) > 0 {
				bs = append(bs, block("text", map[string]any{"title": "Affected services", "content": bulletList(s)}))
			}
			events := []map[string]any{{"time": v.str("started_at"), "event": "Incident started", "status": "completed"}}
			if r := v.str("resolved_at"); r != "" {
				events = append(events, map[string]any{"time": r, "event": "Resolved", "status": "completed"})
			} else {
				events = append(events, map[string]any{"event": capitalize(status), "status": "current"})
			}
			bs = append(bs, block("timeline", map[string]any{"title": "Timeline", "events": events}))
			if rc := v.str("root_cause"); rc != "" {
				bs = append(bs, block("rich_text", map[string]any{"title": "Root cause", "content": md(rc), "collapsible": true}))
			}
			if l := links(v, "dashboard_url", "Dashboard", "runbook_url", "Runbook"); l != nil {
				bs = append(bs, *l)
			}
			return Page{
				Title: v.str("title"), PageType: "incident_report", Priority: severityPriority[sev],
				Summary: clip(v.str("summary"), 500), Blocks: bs,
				Actions: []Action{{"acknowledge", "Acknowledge", "primary"}, {"escalate", "Escalate", "danger"}},
			}
		},
	}
}

func dataReview() *Template {
	return &Template{
		Name:        "data_review",
		Description: "Review a data set before it is used: the rows as a table, where they come from and how they were selected.",
		Variables: []Variable{
			{Key: "title", Label: "Title", Required: true, Type: TString},
			{Key: "rows", Label: "Rows", Required: true, Type: TRows, Description: "Objects keyed by column; the columns are the keys in first-seen order"},
			{Key: "description", Label: "Description", Type: TText},
			{Key: "source", Label: "Source", Type: TString, Description: "e.g. warehouse.orders"},
			{Key: "record_count", Label: "Total records", Type: tInteger, Description: "When rows are a sample of a larger set"},
			{Key: "query", Label: "Query", Type: TText, Description: "Shown as SQL"},
		},
		build: func(v values) Page {
			var bs []blocks.Block
			if d := v.str("description"); d != "" {
				bs = append(bs, block("text", map[string]any{"content": md(d)}))
			}
			tb, _ := v.table("rows")
			var pairs []map[string]any
			if s := v.str("source"); s != "" {
				pairs = append(pairs, kv("Source", s))
			}
			pairs = append(pairs, kv("Rows shown", strconv.Itoa(len(tb.rows))))
			if n, ok := v.num("record_count"); ok {
				pairs = append(pairs, kv("Total records", n.text))
			}
			bs = append(bs, block("key_value", map[string]any{"title": "Data set", "pairs": pairs, "layout": "horizontal"}))
			cols := make([]map[string]any, len(tb.columns))
			for i, c := range tb.columns {
				cols[i] = map[string]any{"key": c, "label": c}
			}
			rows := make([]map[string]any, len(tb.rows))
			copy(rows, tb.rows)
			if len(cols) > 0 {
				bs = append(bs, block("table", map[string]any{"title": "Rows", "columns": cols, "rows": rows, "sortable": true}))
			}
			if q := v.str("query"); q != "" {
				bs = append(bs, block("code", map[string]any{"title": "Query", "language": "sql", "content": q}))
			}
			return Page{
				Title: v.str("title"), PageType: "data_review", Summary: clip(v.str("description"), 500), Blocks: bs,
				Actions: []Action{{"approve", "Approve data", "primary"}, {"reject", "Request changes", "danger"}},
			}
		},
	}
}

func expenseApproval() *Template {
	return &Template{
		Name:        "expense_approval",
		Description: "Approve or reject an expense claim: who, how much, what for, with the receipt.",
		Variables: []Variable{
			{Key: "employee", Label: "Employee", Required: true, Type: TString},
			{Key: "amount", Label: "Amount", Required: true, Type: TNumber},
			{Key: "currency", Label: "Currency", Type: TString, Default: "USD", Description: "ISO 4217 code such as EUR"},
			{Key: "category", Label: "Category", Type: tEnum, Options: []string{"travel", "meals", "lodging", "equipment", "software", "training", "other"}, Default: "other"},
			{Key: "description", Label: "Description", Type: TText},
			{Key: "merchant", Label: "Merchant", Type: TString},
			{Key: "expense_date", Label: "Date of expense", Type: tDate},
			{Key: "cost_center", Label: "Cost center", Type: TString},
			{Key: "receipt_url", Label: "Receipt", Type: TURL},
			{Key: "policy_compliant", Label: "Within policy", Type: tBoolean},
		},
		build: func(v values) Page {
			amt, _ := v.num("amount")
			money := formatMoney(amt.f) + " " + v.str("currency")
			bs := []blocks.Block{block("metric", map[string]any{"title": "Amount", "value": money, "description": capitalize(v.str("category"))})}
			if ok, set := v.flag("policy_compliant"); set && !ok {
				bs = append(bs, block("callout", map[string]any{"style": "warning", "content": "This expense is **outside policy**."}))
			}
			pairs := []map[string]any{kv("Employee", v.str("employee")), kv("Category", v.str("category"))}
			for _, f := range []struct{ key, label string }{{"merchant", "Merchant"}, {"expense_date", "Date"}, {"cost_center", "Cost center"}} {
				if s := v.str(f.key); s != "" {
					pairs = append(pairs, kv(f.label, s))
				}
			}
			if ok, set := v.flag("policy_compliant"); set {
				p := kv("Within policy", map[bool]string{true: "yes", false: "no"}[ok])
				p["badge"] = map[bool]string{true: "success", false: "warning"}[ok]
				pairs = append(pairs, p)
			}
			bs = append(bs, block("key_value", map[string]any{"title": "Expense", "pairs": pairs}))
			if d := v.str("description"); d != "" {
				bs = append(bs, block("text", map[string]any{"title": "Description", "content": md(d)}))
			}
			if u := v.str("receipt_url"); u != "" {
				bs = append(bs, block("link", map[string]any{"links": []map[string]any{{"url": u, "title": "Receipt"}}}))
			}
			return Page{
				Title:    fmt.Sprintf("Approve %s expense for %s?", money, v.str("employee")),
				PageType: "expense_approval", Summary: clip(v.str("description"), 500), Blocks: bs,
				Actions: []Action{{"approve", "Approve", "primary"}, {"reject", "Reject", "danger"}},
			}
		},
	}
}

// kv is one key_value pair; values are plain text (not Markdown).
func kv(key string, val any) map[string]any { return map[string]any{"key": key, "value": val} }

func pairsOf(ps []pair) []map[string]any {
	out := make([]map[string]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, kv(p.key, p.val))
	}
	return out
}

// bulletList is a Markdown list whose items are escaped variables.
func bulletList(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("- ")
		b.WriteString(md(strings.Join(strings.Fields(it), " ")))
	}
	return b.String()
}

// links is a link block of the given url variables (key, title pairs), nil when none is set.
func links(v values, keyTitle ...string) *blocks.Block {
	var ls []map[string]any
	for i := 0; i+1 < len(keyTitle); i += 2 {
		if u := v.str(keyTitle[i]); u != "" {
			ls = append(ls, map[string]any{"url": u, "title": keyTitle[i+1]})
		}
	}
	if ls == nil {
		return nil
	}
	b := block("link", map[string]any{"title": "Links", "links": ls})
	return &b
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// formatMoney shows an amount with two decimals and thousands separators: 1,234.50.
func formatMoney(f float64) string {
	neg := f < 0
	s := strconv.FormatFloat(math.Abs(f), 'f', 2, 64)
	intPart, frac := s[:len(s)-3], s[len(s)-3:]
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + frac
	if neg {
		out = "-" + out
	}
	return out
}
