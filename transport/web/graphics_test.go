package web_test

// Browser tests of the graphics a review found misleading (issue 32 item 7), each
// at 1280 and 390 px, light and dark, with a screenshot per combination.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// graphicsPage holds one block per finding, in this order.
func graphicsPage() map[string]any {
	var old, newer []string
	old = append(old, "func main() {", "\tTABBED := 1", "    SPACED := 1")
	for i := range 30 {
		old = append(old, fmt.Sprintf("    same line %02d", i))
	}
	old = append(old, "}")
	newer = append(newer, old...)
	newer[18] = "    changed line"
	tabs := []any{}
	for _, l := range []string{"Overview", "Rollout plan", "Risk assessment", "Dependencies", "Raw configuration"} {
		tabs = append(tabs, map[string]any{"label": l, "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": l + " body"}}}})
	}
	return approvalPage(map[string]any{"priority": "urgent", "blocks": []any{
		map[string]any{"id": "metric", "type": "metric", "data": map[string]any{"title": "Failed payments", "value": 42, "change": "+12%", "trend": "up", "good": "down",
			"items": []any{map[string]any{"label": "Refunds", "value": 7, "trend": "down", "trend_value": "-3", "sparkline": []any{9, 8, 7}},
				map[string]any{"label": "Revenue", "value": "€1.2M", "trend": "down", "good": "up", "trend_value": "-4%", "sparkline": []any{3, 2, 1}}}}},
		map[string]any{"id": "gauge", "type": "gauge", "data": map[string]any{"title": "Error budget used", "value": 30, "max": 100, "unit": "%",
			"thresholds": []any{map[string]any{"value": 50, "color": "#d29922"}, map[string]any{"value": 80, "color": "#f85149"}}}},
		map[string]any{"id": "diff", "type": "diff", "data": map[string]any{"title": "main.go", "old_text": strings.Join(old, "\n"), "new_text": strings.Join(newer, "\n"), "language": "go"}},
		map[string]any{"id": "video", "type": "embed", "data": map[string]any{"title": "Demo of the rollout", "url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "embed_type": "video"}},
		map[string]any{"id": "page", "type": "embed", "data": map[string]any{"title": "Status page", "url": "https://status.example.com/", "embed_type": "iframe"}},
		map[string]any{"id": "inline", "type": "image", "data": map[string]any{"url": "data:image/png;base64,iVBORw0KGgo=", "alt": "Inline chart", "caption": "An inline chart"}},
		map[string]any{"id": "tabs", "type": "tab", "data": map[string]any{"title": "Details", "tabs": tabs}},
		map[string]any{"id": "notes", "type": "text", "data": map[string]any{"content": "# Notes\n\nWhy this deploy.\n\n## Risks\n\nNone known."}},
		map[string]any{"id": "kv", "type": "key_value", "data": map[string]any{"title": "Checks", "pairs": []any{map[string]any{"key": "Smoke test", "value": "failed", "badge": "error"}}}},
	}})
}

// TestReviewGraphicsSayWhatTheAgentMeant: a rise the agent calls bad is red and
// says "worse"; the gauge's legend has the band its value is in; a diff's tabs are
// 4 columns and its long unchanged runs fold behind a disclosure that opens; a
// YouTube embed is the provider's sandboxed player and the CSP frames nothing
// else, any other embedded page is a link; an inline data: image is a publish
// warning naming the field and is not drawn; the tab strip stays one scrolling
// line at 390 px; Markdown headings never skip a level; red badges reach 4.5:1 in
// dark. At 1280 and 390 px, light and dark.
func TestReviewGraphicsSayWhatTheAgentMeant(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("graphics")
	res := e.Must(201, "POST", "/v1/publish", key, graphicsPage())
	id := res["pageId"].(string)
	var dataWarning string
	for _, w := range res["warnings"].([]any) {
		if strings.HasPrefix(w.(string), "blocks[5].data.url: inline data: images are not shown") {
			dataWarning = w.(string)
		}
	}
	if dataWarning == "" {
		t.Errorf("publishing a data: image gave no warning naming blocks[5].data.url: %v", res["warnings"])
	}

	// The page's CSP frames exactly the two video players.
	resp, err := http.Get(e.Srv.URL + "/p/" + id)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "; frame-src https://www.youtube-nocookie.com https://player.vimeo.com;") {
		t.Errorf("CSP %q does not frame exactly the players", csp)
	}

	tb := newTab(t)
	// The players' addresses never leave this machine (tests reach loopback only).
	if _, err := chromedp.Call(tb.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{
		{URLPattern: "*://*.youtube-nocookie.com/*", Block: true}, {URLPattern: "*://*.vimeo.com/*", Block: true},
		{URLPattern: "*://*.example.com/*", Block: true}}}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []int64{1280, 390} {
		tb.width(w)
		tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
		tb.until("the page script", `document.querySelector("#live") && !document.querySelector("#live").hidden`)
		for _, dark := range []bool{false, true} {
			tb.dark(dark)
			tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
			where := fmt.Sprintf("%d px, dark %v", w, dark)
			checkMetric(tb, where)
			checkGauge(tb, where)
			checkEmbeds(tb, where)
			checkInlineImage(tb, where)
			checkHeadings(tb, where)
			checkTabStrip(tb, where, w)
			checkRedBadges(tb, where)
			checkDiff(tb, where) // last: it opens a fold
			tb.noSidewaysScroll(where)
			theme := "light"
			if dark {
				theme = "dark"
			}
			tb.shot(fmt.Sprintf("graphics-%d-%s", w, theme))
			tb.do(chromedp.Reload())
			tb.until("the page script", `document.querySelector("#live") && !document.querySelector("#live").hidden`)
		}
		tb.dark(false)
	}
}

// rgb is a computed colour as [r, g, b].
const rgbJS = `function rgb(c){var m=c.match(/[\d.]+/g)||[0,0,0];return [+m[0],+m[1],+m[2]]}`

func checkMetric(tb *tab, where string) {
	tb.t.Helper()
	// One figure: Failed payments up, good: down. Cards: Refunds down (the block's
	// good: down), Revenue down with its own good: up.
	got := eval[[]struct {
		Text, Words          string
		Red, Green           bool
		SparkRed, SparkGreen bool
	}](tb, `(function(){`+rgbJS+`
		function red(c){return c[0]>c[1]+60} function green(c){return c[1]>c[0]+30}
		var b=document.querySelector('[data-block-id="metric"]');
		return Array.prototype.map.call(b.querySelectorAll(".mt-trend"),function(t){
			var c=rgb(getComputedStyle(t).color),card=t.closest(".mt-card"),s=card&&card.querySelector(".ch-series"),sc=s?rgb(getComputedStyle(s).stroke):[0,0,0];
			return {Text:t.innerText.replace(/\s+/g," ").trim(),Words:(t.querySelector(".visually-hidden")||{textContent:""}).textContent.trim(),
				Red:red(c),Green:green(c),SparkRed:!!s&&red(sc),SparkGreen:!!s&&green(sc)}})})()`)
	if len(got) != 3 {
		tb.t.Fatalf("%s: %d metric trends", where, len(got))
	}
	if m := got[0]; !m.Red || m.Words != "Up, worse" || m.Text != "Up, worse +12%" {
		tb.t.Errorf("%s: Failed payments up with good: down should be red and say \"Up, worse\": %+v", where, m)
	}
	if m := got[1]; !m.Green || !m.SparkGreen || m.Words != "Down, better" {
		tb.t.Errorf("%s: Refunds down under the block's good: down should be green, \"Down, better\": %+v", where, m)
	}
	if m := got[2]; !m.Red || !m.SparkRed || m.Words != "Down, worse" {
		tb.t.Errorf("%s: Revenue down with good: up should be red, \"Down, worse\": %+v", where, m)
	}
}

func checkGauge(tb *tab, where string) {
	tb.t.Helper()
	rows := eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll('[data-block-id="gauge"] .gz-bands li'),function(li){
		var sw=li.querySelector("svg.ch-sw");return li.innerText.replace(/\s+/g," ").trim()+(li.classList.contains("gz-current")?" *":"")+(sw&&sw.getBoundingClientRect().width>0?"":" (no swatch)")})`)
	if strings.Join(rows, "|") != "0 – 50 current *|50 – 80|80 – 100" {
		tb.t.Errorf("%s: the gauge legend reads %q", where, rows)
	}
}

func checkDiff(tb *tab, where string) {
	tb.t.Helper()
	// The same text after a tab and after 4 spaces starts at the same x.
	x := eval[[]float64](tb, `(function(){var out=[];["TABBED","SPACED"].forEach(function(w){
		var t=document.querySelector('[data-block-id="diff"] .diff-uni'),it=document.createTreeWalker(t,NodeFilter.SHOW_TEXT),n;
		while((n=it.nextNode())){var i=n.data.indexOf(w);if(i>=0){var r=document.createRange();r.setStart(n,i);r.setEnd(n,i+1);out.push(r.getBoundingClientRect().left);return}}
		out.push(-1)});return out})()`)
	if len(x) != 2 || x[0] < 0 || x[0]-x[1] > 1 || x[1]-x[0] > 1 {
		tb.t.Errorf("%s: a tab is not 4 columns: text after a tab at x=%v, after 4 spaces at x=%v", where, x[0], x[1])
	}
	fold := eval[struct {
		Folds          int
		Summary        string
		Hidden, Shown  int
		OpenBeforeRead bool
	}](tb, `(function(){var b=document.querySelector('[data-block-id="diff"] .diff-uni'),f=b.querySelectorAll("tbody.diff-fold"),
		first=f[0],rows=first?first.querySelectorAll("tr:not(.diff-foldbar)"):[],hid=0;
		rows.forEach(function(r){if(r.getClientRects().length===0)hid++});
		return {Folds:f.length,Summary:first?first.querySelector("summary").innerText.trim():"",Hidden:hid,Shown:rows.length-hid,OpenBeforeRead:!!(first&&first.querySelector("details[open]"))}})()`)
	if fold.Folds != 2 || fold.Summary != "15 unchanged lines" || fold.Hidden != 15 || fold.Shown != 0 || fold.OpenBeforeRead {
		tb.t.Fatalf("%s: folds %+v", where, fold)
	}
	tb.do(chromedp.Click(chromedp.CSS(`[data-block-id="diff"] .diff-uni tbody.diff-fold summary`)))
	tb.until("the fold's rows", `Array.prototype.every.call(document.querySelectorAll('[data-block-id="diff"] .diff-uni tbody.diff-fold')[0].querySelectorAll("tr:not(.diff-foldbar)"),function(r){return r.getClientRects().length>0})`)
}

func checkEmbeds(tb *tab, where string) {
	tb.t.Helper()
	got := eval[struct {
		Src, Sandbox, Referrer string
		Frames                 int
		PageLink               string
	}](tb, `(function(){var f=document.querySelector('[data-block-id="video"] iframe')||{getAttribute:function(){return ""}};
		var a=document.querySelector('[data-block-id="page"] a.emb-doc');
		return {Src:f.getAttribute("src")||"",Sandbox:f.getAttribute("sandbox")||"",Referrer:f.getAttribute("referrerpolicy")||"",
			Frames:document.querySelectorAll("iframe").length,PageLink:a?a.getAttribute("href"):""}})()`)
	if got.Src != "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" || got.Sandbox != "allow-scripts allow-same-origin allow-popups allow-presentation" || got.Referrer != "strict-origin" {
		tb.t.Errorf("%s: the YouTube embed is %+v", where, got)
	}
	if got.Frames != 1 || got.PageLink != "https://status.example.com/" {
		tb.t.Errorf("%s: another page is framed or not linked: %d frames, link %q", where, got.Frames, got.PageLink)
	}
}

func checkInlineImage(tb *tab, where string) {
	tb.t.Helper()
	got := eval[struct {
		DataImages int
		Said       string
	}](tb, `({DataImages:Array.prototype.filter.call(document.images,function(i){return /^data:/i.test(i.getAttribute("src")||"")}).length,
		Said:(document.querySelector('[data-block-id="inline"]')||{innerText:""}).innerText})`)
	if got.DataImages != 0 || !strings.Contains(got.Said, "Image not shown") {
		tb.t.Errorf("%s: the inline image: %+v", where, got)
	}
}

func checkHeadings(tb *tab, where string) {
	tb.t.Helper()
	levels := eval[[]int](tb, `Array.prototype.filter.call(document.querySelectorAll("h1,h2,h3,h4,h5,h6"),function(h){return h.getClientRects().length>0}).map(function(h){return +h.tagName[1]})`)
	prev := 0
	for _, l := range levels {
		if l > prev+1 {
			tb.t.Errorf("%s: headings skip from h%d to h%d: %v", where, prev, l, levels)
			break
		}
		prev = l
	}
	md := eval[string](tb, `(function(){var h=document.querySelector('[data-block-id="notes"] .md h2, [data-block-id="notes"] .md h3');return h?h.tagName+" "+h.innerText:""})()`)
	if md != "H2 Notes" {
		tb.t.Errorf("%s: an untitled block's \"# Notes\" is %q, want an H2 (under the page's h1)", where, md)
	}
}

func checkTabStrip(tb *tab, where string, w int64) {
	tb.t.Helper()
	got := eval[struct {
		Strip, Tab             float64
		ScrollW, ClientW       float64
		ScrolledTo, Overflow   float64
		LastTabRightOfTheStrip bool
	}](tb, `(function(){var l=document.querySelector('[data-block-id="tabs"] [role=tablist]'),t=l.querySelector("[role=tab]");
		var r={Strip:l.getBoundingClientRect().height,Tab:t.getBoundingClientRect().height,ScrollW:l.scrollWidth,ClientW:l.clientWidth};
		l.scrollLeft=l.scrollWidth;r.ScrolledTo=l.scrollLeft;l.scrollLeft=0;
		var tabs=l.querySelectorAll("[role=tab]");r.LastTabRightOfTheStrip=tabs[tabs.length-1].getBoundingClientRect().right>l.getBoundingClientRect().right+1;
		return r})()`)
	if got.Strip > got.Tab+4 {
		tb.t.Errorf("%s: the tab strip wraps: %.0f px tall for %.0f px tabs", where, got.Strip, got.Tab)
	}
	if w == 390 && (got.ScrollW <= got.ClientW || got.ScrolledTo <= 0 || !got.LastTabRightOfTheStrip) {
		tb.t.Errorf("%s: the tab strip does not scroll sideways: %+v", where, got)
	}
}

// checkRedBadges: the red badges (urgent priority, a withdrawn page's status, a
// rejected chain step, the inbox's rejected chip) and the key_value error badge
// pass axe's contrast rule where they stand (on the page's background).
func checkRedBadges(tb *tab, where string) {
	tb.t.Helper()
	tb.eval0(`(function(){var b=document.querySelector(".page-head .badges");if(!b||b.querySelector(".t-red"))return;
		["st-revoked","chain-rejected","dec-rejected"].forEach(function(c){var s=document.createElement("span");s.className="badge t-red "+c;s.textContent=c==="st-revoked"?"Withdrawn":"Rejected";b.appendChild(s)})})()`)
	src, err := axeSource()
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.eval0(src)
	bad := await[[]string](tb, `axe.run({include:[[".badge.pr-urgent"],[".badge.t-red"],[".kv-badge-error"]]},{runOnly:["color-contrast"]}).then(function(r){
		var out=[];r.violations.forEach(function(v){v.nodes.forEach(function(n){out.push(n.target.join(" ")+": "+n.failureSummary.replace(/\s+/g," "))})});
		if(!document.querySelector(".badge.pr-urgent"))out.push("no urgent badge");return out})`)
	if len(bad) > 0 {
		tb.t.Errorf("%s: red badges below 4.5:1:\n%s", where, strings.Join(bad, "\n"))
	}
}
