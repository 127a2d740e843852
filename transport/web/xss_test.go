package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// payloads each try to set window.__xss when anything interprets them as markup,
// script or an address to follow.
var payloads = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror="window.__xss=2">`,
	`javascript:window.__xss=3`,
	`data:text/html,<script>parent.__xss=4</script>`,
	`vbscript:msgbox(5)`,
	`<svg onload="window.__xss=6"><circle/></svg>`,
	`'"><svg/onload=window.__xss=7>`,
	`</textarea></style></script><script>window.__xss=8</script>`,
	`[click](javascript:window.__xss=9) ![img](javascript:window.__xss=10) <a href="javascript:window.__xss=11">a</a>`,
	`<iframe src="javascript:window.__xss=12"></iframe><object data="javascript:window.__xss=13"></object>`,
	`JaVaScRiPt:window.__xss=14`,
	"java\tscript:window.__xss=15",
	`<details open ontoggle="window.__xss=16">x</details><math><mi xlink:href="javascript:window.__xss=17">m</mi></math>`,
	`{{.}}{{template "x"}}<!-- --><style>body{display:none}</style>`,
}

// poison replaces every string of v (block data, recursively) with a payload,
// except the fields that decide what a block is (type, id, field_id, chart_type...).
func poison(v any, n *int) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "type", "id", "field_id", "chart_type", "embed_type", "view_mode", "layout", "style", "align", "level", "status", "color_scale", "trend", "badge", "spacing", "language":
				continue
			}
			x[k] = poison(e, n)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = poison(e, n)
		}
		return x
	case string:
		*n++
		return payloads[*n%len(payloads)]
	}
	return v
}

// TestNothingAnAgentOrAVisitorWritesExecutes puts script, event handlers,
// javascript:/data:/vbscript: addresses, SVG payloads and attribute breakouts in
// the title, summary, tags, every string field of every block, comments (content
// and author), file names and template variables, loads the page, lets the live
// updates redraw it, and checks in the browser that nothing ran: the flag a payload
// would set stays unset, and the DOM holds no script of theirs, no event-handler
// attribute and no such address.
func TestNothingAnAgentOrAVisitorWritesExecutes(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("xss")
	n := 0
	bs := allBlocks(t)
	for i := range bs {
		bs[i] = poison(bs[i], &n)
	}
	id := publish(t, e, key, map[string]any{
		"title": payloads[0] + payloads[1], "summary": payloads[7] + payloads[5], "tags": []any{payloads[1], payloads[6]},
		"page_type": payloads[2], "blocks": bs,
		"actions": []any{map[string]any{"action_id": "approve", "label": payloads[1]}, map[string]any{"action_id": "reject", "label": payloads[0], "style": "danger"}},
	})
	for i, p := range payloads {
		e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": p, "author_name": fmt.Sprintf("v%d %s", i, p)})
	}
	p := e.Must(200, "POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": payloads[1] + ".txt", "size_bytes": 2})
	e.Must(200, "PUT", p["uploadUrl"].(string), "", "ok")
	e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", "", map[string]any{"storage_key": p["storageKey"]})
	tpl := e.Must(201, "POST", "/v1/publish/template/approval", key, map[string]any{"variables": map[string]any{
		"title": payloads[0], "description": payloads[8], "details": map[string]any{payloads[1]: payloads[5]},
		"requested_by": payloads[6], "approve_label": payloads[7], "reject_label": payloads[1]}})["pageId"].(string)

	tb := newTab(t)
	for _, pageID := range []string{id, tpl} {
		tb.openLive(e.Srv.URL + "/p/" + pageID)
		// Live redraws go through the same escaping: a poisoned comment and block arrive now.
		e.Must(201, "POST", "/v1/pages/"+pageID+"/comments", "", map[string]any{"content": payloads[1], "author_name": payloads[6]})
		e.Must(200, "PATCH", "/v1/pages/"+pageID+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"id": "late", "type": "text", "data": map[string]any{"content": payloads[8], "title": payloads[0]}}}})
		tb.until("the live block", `!!document.querySelector('[data-block-id="late"]')`)
		tb.do(chromedp.Click(chromedp.CSS(`.comment [data-reply]`))) // scripts run over poisoned content
		if got := eval[any](tb, `window.__xss`); got != nil {
			t.Fatalf("a payload ran on %s: window.__xss = %v", pageID, got)
		}
		found := eval[[]string](tb, `(function(){var out=[];
			document.querySelectorAll("script").forEach(function(s){ if(!/^\/assets\/folio\.[0-9a-f]+\.js$/.test(s.getAttribute("src")||"")) out.push("script: "+s.outerHTML.slice(0,80)) });
			document.querySelectorAll("*").forEach(function(el){
				for (var i=0;i<el.attributes.length;i++){ var a=el.attributes[i], v=(a.value||"").replace(/[\s\u0000-\u001f]/g,"").toLowerCase();
					if (/^on/i.test(a.name)) out.push(el.tagName+" "+a.name);
					if (/^(href|src|action|formaction|poster|data|xlink:href|srcdoc)$/i.test(a.name) && /^(javascript|data|vbscript):/.test(v)) out.push(el.tagName+" "+a.name+"="+v.slice(0,40));
				}});
			document.querySelectorAll("iframe,object,embed").forEach(function(f){ if(!/^https:/.test(f.getAttribute("src")||"")) out.push(f.tagName+" "+(f.getAttribute("src")||"")) });
			return out})()`)
		if len(found) > 0 {
			t.Errorf("page %s holds live markup from input:\n%s", pageID, strings.Join(found, "\n"))
		}
		if !strings.Contains(eval[string](tb, `document.body.innerText`), "<script>window.__xss=1</script>") {
			t.Errorf("the payloads are not shown as the text they are")
		}
	}
	tb.shot("xss-battery")
}

// TestPagesSendTheirSecurityHeaders: the review page has the strict CSP, no
// referrer and nosniff; so do its parts; the JSON API says nosniff too.
func TestPagesSendTheirSecurityHeaders(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("headers")
	id := publish(t, e, key, approvalPage(nil))
	for _, path := range []string{"/p/" + id, "/p/" + id + "/parts/comments", "/p/pg_nope"} {
		res, err := http.Get(e.Srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' https:", "frame-src https://www.youtube-nocookie.com https://player.vimeo.com;", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: CSP allows %q", path, csp)
		}
		if res.Header.Get("Referrer-Policy") != "no-referrer" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: Referrer-Policy %q, X-Content-Type-Options %q", path, res.Header.Get("Referrer-Policy"), res.Header.Get("X-Content-Type-Options"))
		}
	}
	for _, path := range []string{"/v1/pages/" + id + "/comments", "/v1/openapi.json", "/v1/nope"} {
		res, err := http.Get(e.Srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
	}
	// The ETag of the HTML lets a browser revalidate for nothing.
	res, _ := http.Get(e.Srv.URL + "/p/" + id)
	res.Body.Close()
	req, _ := http.NewRequest("GET", e.Srv.URL+"/p/"+id, nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if res.Header.Get("ETag") == "" || again.StatusCode != http.StatusNotModified {
		t.Errorf("ETag %q, revalidation %d", res.Header.Get("ETag"), again.StatusCode)
	}
}
