package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/page"
	"folio/transport/status"
	"folio/transport/web/render"
)

// formID is the id of the review page's one <form> element: the decision form. Form
// blocks' fields and action buttons inside blocks belong to it through their form
// attribute.
const formID = "decide"

// review is GET /p/:id.
func (s *Site) review(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	o, err := s.open(r, ps.ByName("id"))
	if err != nil {
		return err
	}
	if o == nil {
		s.notFound(w, r)
		return nil
	}
	return s.show(w, r, o, http.StatusOK, nil)
}

// show renders the review page for o with status; problem (may be nil) is the
// refusal of a decision the person just sent without JavaScript.
func (s *Site) show(w http.ResponseWriter, r *http.Request, o *page.Opened, status int, problem *problemView) error {
	return s.showWith(w, r, o, status, problem, askOf(r))
}

// showWith is show with the threads drawn as ask says (a comment refused after a
// post without JavaScript shows in its block's thread).
func (s *Site) showWith(w http.ResponseWriter, r *http.Request, o *page.Opened, status int, problem *problemView, ask threadAsk) error {
	buf := getBuf()
	defer putBuf(buf)
	me, _ := s.me(w, r)
	var err error
	switch {
	case o.Gone:
		sh := s.shell("This page was withdrawn")
		sh.Me = me
		err = s.execute(buf, "gone", sh)
		status = http.StatusGone
	case o.Gate:
		// Someone signed in whom the page does not admit is 403 and told so; anyone
		// else is asked to sign in (401). Neither sees anything of the page.
		v := gateView{Shell: s.shell("Sign-in required"), SignIn: s.signinBox(o.Page.ID, "/p/"+o.Page.ID)}
		v.Me, status = me, http.StatusUnauthorized
		if me != nil {
			v.Title, status = "Not shared with you", http.StatusForbidden
		}
		err = s.execute(buf, "gate", v)
	default:
		v := s.reviewOf(o, s.c.Now(), me, true, commentsBefore(r), ask)
		v.Problem = problem
		err = s.execute(buf, "review", v)
	}
	if err != nil {
		return err
	}
	s.writeHTML(w, r, status, buf.Bytes())
	return nil
}

// Shell is what every page of this package has around its content.
type Shell struct {
	Title string
	CSS   string
	JS    string
	Me    *meView // the signed-in person, nil for anyone else
}

func (s *Site) shell(title string) Shell {
	return Shell{Title: title, CSS: s.assets.css.path, JS: s.assets.js.path}
}

// reviewView is the review page's model: the page's chrome, its rendered blocks and
// its parts (state, decision form, files, comments), each of which is also served
// alone (parts.go) so the page can redraw it live.
type reviewView struct {
	Shell
	ID          string
	Status      string // effective status: an active page past its expiry reads expired
	StatusLabel string
	// StatusClass colours the status badge: a completed page by its outcome (green
	// approved, red rejected, neutral for a decision:none action).
	StatusClass string
	PageType    string
	Summary     string
	Priority    string
	Tags        []string
	CreatedBy   string
	CreatedAt   time.Time
	ExpiresAt   *time.Time
	Views       int
	Version     int
	// Seen is the content version the signed-in person last saw (0: not signed in,
	// or none on record); Changes is, as JSON, the version at which each part of
	// the content last changed (page.ContentChanges). The page script marks what
	// changed since the person last looked from the two (assets/changed.js).
	Seen     int
	Changes  string
	Blocks   any // template.HTML
	State    stateView
	Decide   decideView
	Files    filesView
	Comments commentsView
	Problem  *problemView

	renderOptions render.Options // how the blocks were drawn (live fragments use the same)
}

// stateView is the page's outcome so far: the decision once made, the approval chain
// and its progress, and the notice of an expired or completed page.
type stateView struct {
	ID       string
	Status   string
	Decision *decisionView
	// Step is the latest action declared final:false (snooze, acknowledge) while
	// the page is still open: recorded, shown under its own label, neutral.
	Step    *decisionView
	Chain   *chainView
	Expired bool
	// Notified is the agent's callback for the decision; nil when there is none.
	Notified *notifiedView
}

type decisionView struct {
	Outcome string // approved, rejected, none (verdict.go in actors/page)
	Action  string // the label of the action that completed the page
	By      string
	Key     string // the API key that recorded it for By (KeyRef.Label); "" when By acted
	At      time.Time
	Comment string
}

type chainView struct {
	Status  string // in_progress, approved, rejected
	Mode    string
	Steps   []stepView
	Current string // the name of the step awaiting a decision
}

type stepView struct {
	Name      string
	Status    string // pending, completed, skipped
	Current   bool
	Decision  string
	DecidedBy string
	// RecordedBy is the API key that recorded the decision for DecidedBy
	// (KeyRef.Label); "" when DecidedBy decided themselves.
	RecordedBy string
	DecidedAt  *time.Time
	Assignees  []string
	Needed     int // approvals a step needs
	Approvals  int
}

// decideView is the decision form: the page's actions while it is active.
type decideView struct {
	ID      string
	Open    bool // the page takes decisions now
	Actions []actionView
	// FormOnly: the page has form blocks and no actions; its form is submitted with
	// the implicit action page.SubmitAction (the form block draws the button).
	FormOnly bool
	HasForm  bool
	Me       *meView    // signed in: decides as their verified address
	Verify   *signinBox // an approval chain awaits a step and nobody is signed in
	// Version is the content version drawn; the decision form sends it as
	// page_version, so a decision on content that changed since is refused.
	Version int
	// Waiting is the step the chain awaits from others once the signed-in person
	// decided theirs (Open is then false: their buttons would only answer 403/409);
	// MyStep is the step they decided.
	Waiting string
	MyStep  string
}

type actionView struct {
	ID     string
	Label  string
	Style  string
	Danger bool
	// Confirm: the person confirms in a dialog naming the action and the page (or on
	// a page of its own without JavaScript) before it is sent: danger actions and
	// those the agent marked confirm.
	Confirm bool
}

// problemView is a refusal shown in place (a decision sent without JavaScript).
type problemView struct {
	Message string
	Fields  []fieldProblem
}

type fieldProblem struct {
	FieldID string
	Message string
}

// gateView is the page an authenticated page shows in its place until the person
// signs in with an address it admits.
type gateView struct {
	Shell
	SignIn signinBox
}

// reviewOf is the review page's model; its blocks are drawn only withBlocks (the
// parts that do not show them skip the work), each with its comment thread as ask
// says.
func (s *Site) reviewOf(o *page.Opened, now time.Time, me *meView, withBlocks bool, before uint64, ask threadAsk) reviewView {
	p := o.Page
	status := page.EffectiveStatus(p, now)
	sh := s.shell(p.Title)
	sh.Me = me
	v := reviewView{
		Shell: sh, ID: p.ID, Status: status, StatusLabel: statusLabel(status),
		PageType: p.PageType, Summary: p.Summary, Priority: p.Priority, Tags: p.Tags, CreatedBy: p.CreatedBy,
		CreatedAt: p.CreatedAt, ExpiresAt: p.ExpiresAt, Views: p.Stats.ViewCount, Version: p.Version,
		Seen: o.Seen, Changes: changesJSON(p.Changes),
	}
	v.State = stateOf(p, status)
	v.StatusClass = status
	if d := v.State.Decision; d != nil && d.Outcome != page.DecisionApproved {
		v.StatusClass = status + "-" + d.Outcome
	}
	v.State.Notified = s.notifiedOf(p)
	v.Decide = decideOf(p, status)
	v.Decide.Me = me
	turnOf(&v.Decide, p, me)
	if v.Decide.Open && me == nil && p.Approval != nil && p.Approval.Status == page.ChainInProgress {
		// A typed name never decides a step of an approval chain: the person verifies
		// their address first, and comes back here signed in.
		v.Decide.Verify = &signinBox{}
		*v.Decide.Verify = s.signinBox(p.ID, "/p/"+p.ID)
	}
	v.renderOptions = s.renderOptions(p, v.Decide, now)
	if withBlocks {
		v.renderOptions.Threads = s.threadsOf(p, o.Comments, status, me, ask)
		blocks := getBuf() // pooled: a page's blocks run to hundreds of KB, grown once
		render.Page(blocks, shownBlocks(p), v.renderOptions)
		v.Blocks = htmlOf(blocks.String())
		putBuf(blocks)
	}
	v.Files = filesOf(p, o.Files, status)
	v.Files.Closed = closedWhy(status, "files")
	v.Comments = commentsOf(p, o.Comments, status, before)
	v.Comments.Closed = closedWhy(status, "comments")
	v.Comments.Me = me
	return v
}

// changesJSON is the page's content changes as the review page's script reads them
// ("{}" when nothing changed since version 1).
func changesJSON(c *page.ContentChanges) string {
	if c == nil {
		return "{}"
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// renderOptions are how the page's blocks are drawn: against its decision form
// while it takes decisions, within the page's output budget, through the cache.
func (s *Site) renderOptions(p *page.Page, d decideView, now time.Time) render.Options {
	opt := render.Options{PageID: p.ID, Now: now, Cache: s.fragments, MaxBytes: s.c.MaxPageBytes}
	if p.Status == page.Completed {
		opt.Answers, opt.Stopped = sentAnswers(p), p.CompletedAt
		if _, edits := page.EditedBlocks(p); edits != nil {
			by := p.LastExecution().Actor
			opt.Edited = make(map[string]render.EditMark, len(edits))
			for _, b := range p.Blocks {
				if ed, ok := edits[b.ID]; ok {
					opt.Edited[b.ID] = render.EditMark{By: by, Diff: ed.Diff, Original: b}
				}
			}
		}
	}
	if d.Open {
		opt.FormID, opt.Actions = formID, map[string]bool{}
		for _, a := range d.Actions {
			opt.Actions[a.ID] = true
		}
		if d.FormOnly {
			opt.Actions[""] = true
		}
	}
	return opt
}

// shownBlocks is the page's blocks as the review page draws them: the agent's,
// with the data a decision's edits gave the blocks it edited (actors/page/edits.go).
func shownBlocks(p *page.Page) []blocks.Block {
	list, _ := page.EditedBlocks(p)
	return list
}

func statusLabel(status string) string {
	switch status {
	case page.Active:
		return "Awaiting review"
	case page.Completed:
		return "Decided"
	case page.Expired:
		return "Expired"
	case page.Revoked:
		return "Withdrawn"
	case page.Draft:
		return "Draft"
	}
	return status
}

func stateOf(p *page.Page, status string) stateView {
	st := stateView{ID: p.ID, Status: status, Expired: status == page.Expired}
	if status == page.Completed {
		d := &decisionView{Outcome: p.Decision}
		if e := p.LastExecution(); e != nil {
			*d = executionView(p, e)
			if p.Decision == "" { // completed by a neutral action (decision "none")
				d.Outcome = page.OutcomeNone
			} else {
				d.Outcome = p.Decision
			}
		}
		if p.CompletedAt != nil {
			d.At = *p.CompletedAt
		}
		st.Decision = d
	} else if e := p.LastExecution(); e != nil && e.Step && status == page.Active {
		d := executionView(p, e)
		st.Step = &d
	}
	if c := p.Approval; c != nil {
		cv := &chainView{Status: c.Status, Mode: c.Mode}
		view := c.View()
		for _, sv := range view.Steps {
			current := view.CurrentStep != nil && sv.StepID == *view.CurrentStep && c.Status == page.ChainInProgress
			if c.Mode != page.ModeSequential {
				current = sv.Status == page.StepPending && c.Status == page.ChainInProgress
			}
			step := stepView{Name: sv.Name, Status: sv.Status, Current: current, Decision: sv.Decision, DecidedBy: sv.DecidedBy, RecordedBy: sv.Key.Label(),
				DecidedAt: sv.DecidedAt, Assignees: sv.Assignees, Needed: sv.MinApprovals}
			for _, d := range sv.Decisions {
				if d.Decision == page.DecisionApproved {
					step.Approvals++
				}
			}
			if step.Current {
				cv.Current = sv.Name
			}
			cv.Steps = append(cv.Steps, step)
		}
		st.Chain = cv
	}
	return st
}

func decideOf(p *page.Page, status string) decideView {
	d := decideView{ID: p.ID, Open: status == page.Active, HasForm: page.HasForm(p), Version: p.Version}
	for _, a := range p.Actions {
		label := a.Label
		if strings.TrimSpace(label) == "" {
			label = a.ActionID
		}
		d.Actions = append(d.Actions, actionView{ID: a.ActionID, Label: label, Style: a.Style, Danger: a.Style == "danger", Confirm: a.Style == "danger" || a.Confirm})
	}
	d.FormOnly = len(p.Actions) == 0 && d.HasForm
	if len(d.Actions) == 0 && !d.FormOnly {
		d.Open = false
	}
	return d
}

// failed shows err as a page with the status the API gives the same error
// (transport/status): a store or actor that did not answer is 503 try again, a
// refusal is its own status with its message, anything else 500 (logged in full).
func (s *Site) failed(w http.ResponseWriter, r *http.Request, err error) {
	fe, code, internal := status.Of(err)
	status.SetRetryAfter(w.Header(), err)
	v := noticeView{Heading: "Something went wrong", Message: "The page could not be shown just now. Reloading in a moment usually helps."}
	switch {
	case internal:
		s.c.Log.Error("page for people failed", slog.String("path", r.URL.Path), slog.Any("err", err))
	case code == http.StatusServiceUnavailable:
		s.c.Log.Warn("page for people unavailable", slog.String("path", r.URL.Path), slog.Any("err", err))
		v.Heading, v.Message = "Folio is busy", "It did not answer in time. Nothing was lost: try again in a moment."
	case code == http.StatusRequestEntityTooLarge:
		v.Heading, v.Message = "That was too large", sentence(fe.Message)+" Go back and send less."
	default:
		v.Heading, v.Message = "That did not work", sentence(fe.Message)
	}
	v.Shell = s.shell(v.Heading)
	buf := getBuf()
	defer putBuf(buf)
	if s.execute(buf, "notice", v) != nil { // not s.render: it fails here
		http.Error(w, v.Message, code)
		return
	}
	s.writeHTML(w, r, code, buf.Bytes())
}

// sentence is a refusal's message as a sentence a person reads.
func sentence(msg string) string {
	if msg == "" {
		return "The request was refused."
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// notFound is the friendly 404 page.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	buf := getBuf()
	defer putBuf(buf)
	if s.execute(buf, "missing", s.shell("Page not found")) != nil {
		http.NotFound(w, r)
		return
	}
	s.writeHTML(w, r, http.StatusNotFound, buf.Bytes())
}

// sortedComments returns comments threaded: top-level ones in creation order, each
// followed by its replies (recursively), with their depth.
func threaded(list []*page.Comment) []threadItem {
	children := map[string][]*page.Comment{}
	ids := map[string]bool{}
	for _, c := range list {
		ids[c.ID] = true
	}
	var roots []*page.Comment
	for _, c := range list {
		if c.ParentID != "" && ids[c.ParentID] {
			children[c.ParentID] = append(children[c.ParentID], c)
		} else {
			roots = append(roots, c)
		}
	}
	var out []threadItem
	var walk func(c *page.Comment, depth int)
	walk = func(c *page.Comment, depth int) {
		out = append(out, threadItem{Comment: c, Depth: min(depth, 4)})
		kids := children[c.ID]
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].Seq < kids[j].Seq })
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, c := range roots {
		walk(c, 0)
	}
	return out
}

type threadItem struct {
	Comment *page.Comment
	Depth   int
}

// executionView is how the review page names an execution: the action's own label
// (as recorded, else as the page lists it), who and when, and its outcome.
func executionView(p *page.Page, e *page.Execution) decisionView {
	d := decisionView{Outcome: e.OutcomeOf(), By: e.Actor, At: e.ExecutedAt, Key: e.Key.Label(), Action: e.ActionLabel}
	if e.Comment != nil {
		d.Comment = *e.Comment
	}
	if d.Action == "" {
		d.Action = e.ActionID
		for _, a := range p.Actions {
			if a.ActionID == e.ActionID && a.Label != "" {
				d.Action = a.Label
			}
		}
	}
	return d
}
