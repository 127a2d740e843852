// Package web serves the pages people open in a browser: the page viewer at
// /p/:id and the short address /s/:code that redirects to it.
package web

import (
	"encoding/json"
	"html/template"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/ids"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// Router is where routes are mounted (the API server).
type Router interface {
	Handle(method, path string, h httprouter.Handle)
}

// Config wires the viewer.
type Config struct {
	Store *persistence.Store
	Pages *registry.Registry
	Now   func() time.Time
}

// Mount adds the viewer routes.
func Mount(r Router, c Config) {
	v := &viewer{c: c}
	r.Handle("GET", "/p/:id", v.page)
	r.Handle("GET", "/s/:code", v.short)
}

type viewer struct{ c Config }

func (v *viewer) short(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	id, ok := page.ResolveShortCode(v.c.Store, ps.ByName("code"))
	if ok {
		res, err := v.c.Pages.Ask(id, &page.Read{})
		pr, isPage := res.(*page.Result)
		ok = err == nil && isPage && pr.Page.Status != page.Draft
	}
	if !ok {
		http.Error(w, "This link does not lead to a page.", http.StatusNotFound)
		return
	}
	http.Redirect(w, r, "/p/"+id, http.StatusFound)
}

type blockView struct {
	Type  string
	Title string
	Text  string
	JSON  string
}

func (v *viewer) page(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	res, err := v.c.Pages.Ask(ps.ByName("id"), &page.Read{})
	pr, ok := res.(*page.Result)
	if err != nil || !ok || pr.Page.Status == page.Draft { // a draft is not published: nobody has a link to it yet
		http.Error(w, "Page not found.", http.StatusNotFound)
		return
	}
	p := pr.Page
	nonce := ids.Random(22) // the viewer's one inline script (view count, live updates)
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'nonce-"+nonce+"'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	status := page.EffectiveStatus(p, v.c.Now())
	if status == page.Revoked {
		w.WriteHeader(http.StatusGone)
		_ = viewTmpl.Execute(w, map[string]any{"Title": "Page revoked", "Status": status})
		return
	}
	if p.Access.Mode == "authenticated" {
		w.WriteHeader(http.StatusUnauthorized)
		_ = viewTmpl.Execute(w, map[string]any{"Title": "Sign-in required", "Status": status})
		return
	}
	bs := make([]blockView, len(p.Blocks))
	for i, b := range p.Blocks {
		var data map[string]any
		_ = json.Unmarshal(b.Data, &data)
		bv := blockView{Type: b.Type}
		bv.Title, _ = data["title"].(string)
		if c, ok := data["content"].(string); ok {
			bv.Text = c
		} else {
			pretty, _ := json.MarshalIndent(data, "", "  ")
			bv.JSON = string(pretty)
		}
		bs[i] = bv
	}
	_ = viewTmpl.Execute(w, map[string]any{"Title": p.Title, "Summary": p.Summary, "Status": status, "Blocks": bs, "Actions": p.Actions,
		"Live": map[string]string{"Nonce": nonce, "PageID": p.ID}})
}

// html/template escapes every value: nothing an agent sends is interpreted as markup.
var viewTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:860px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
.status{display:inline-block;padding:.1rem .5rem;border-radius:1rem;background:#eef;font-size:.8rem}
section{border:1px solid #ddd;border-radius:8px;padding:1rem;margin:1rem 0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
button{margin-right:.5rem;padding:.4rem 1rem}</style></head>
<body><h1>{{.Title}}</h1><p><span class="status">{{.Status}}</span></p>{{with .Summary}}<p>{{.}}</p>{{end}}
{{range .Blocks}}<section data-type="{{.Type}}">{{with .Title}}<h3>{{.}}</h3>{{end}}{{with .Text}}<p>{{.}}</p>{{end}}{{with .JSON}}<pre>{{.}}</pre>{{end}}</section>{{end}}
{{with .Actions}}<div class="actions">{{range .}}<button data-action="{{.ActionID}}" disabled>{{.Label}}</button>{{end}}</div>{{end}}
{{with .Live}}<p id="live" hidden>This page has changed. <a href="">Reload</a></p>
<script nonce="{{.Nonce}}">(function(){var id={{.PageID}},base="/v1/pages/"+encodeURIComponent(id);
fetch("/internal/pages/"+encodeURIComponent(id)+"/view",{method:"POST"}).catch(function(){});
if(!window.EventSource)return;var es=new EventSource(base+"/events");
var states={"page.completed":"completed","page.expired":"expired","page.revoked":"revoked","page.renewed":"active","page.published":"active"};
es.onmessage=function(e){var m;try{m=JSON.parse(e.data)}catch(x){return}
if(m.type==="connected"||/^(comment|file)\./.test(m.type))return;
var s=document.querySelector(".status");if(states[m.type]&&s){s.textContent=states[m.type];return}
document.getElementById("live").hidden=false};})();</script>{{end}}
</body></html>`))
