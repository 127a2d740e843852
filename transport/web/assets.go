package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"sort"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/transport/web/render"
)

//go:embed assets/*
var assetFS embed.FS

// asset is one static file, built once at start: its bytes, their gzip form, and a
// name carrying their hash, so it can be cached forever (a new build is a new name).
type asset struct {
	path string // /assets/<name>.<hash>.<ext>
	typ  string
	body []byte
	gz   []byte
}

// assetSet holds the pages' two bundles: the blocks' CSS and JS (render) followed
// by the pages' own, assets/shared.js (the helpers the scripts after it use),
// assets/app.css (app.js) first and then every other
// assets/*.css (*.js) in name order (the dashboard's screens). Nothing is fetched
// from another origin, and there is no build step: the bundles are concatenated at
// start.
type assetSet struct {
	css, js *asset
	byPath  map[string]*asset
}

func buildAssets() *assetSet {
	app := func(ext string) [][]byte {
		names, _ := fs.Glob(assetFS, "assets/*."+ext)
		rank := func(n string) int { // shared.js (what the others use) first, then app.*
			switch n {
			case "assets/shared." + ext:
				return 0
			case "assets/app." + ext:
				return 1
			}
			return 2
		}
		sort.Slice(names, func(i, j int) bool {
			if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
				return ri < rj
			}
			return names[i] < names[j]
		})
		var out [][]byte
		for _, n := range names {
			b, err := assetFS.ReadFile(n)
			if err != nil {
				panic(err)
			}
			out = append(out, b)
		}
		return out
	}
	css := newAsset("folio", "css", "text/css; charset=utf-8", append([][]byte{render.Stylesheet()}, app("css")...)...)
	js := newAsset("folio", "js", "text/javascript; charset=utf-8", append([][]byte{render.Script()}, app("js")...)...)
	return &assetSet{css: css, js: js, byPath: map[string]*asset{css.path: css, js.path: js}}
}

func newAsset(name, ext, typ string, parts ...[]byte) *asset {
	body := bytes.Join(parts, []byte("\n"))
	sum := sha256.Sum256(body)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	return &asset{path: "/assets/" + name + "." + hex.EncodeToString(sum[:6]) + "." + ext, typ: typ, body: body, gz: gz.Bytes()}
}

// serve answers GET /assets/:name. A name from an older build is 404, so a stale
// page reloads rather than mixing versions.
func (s *assetSet) serve(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	a := s.byPath["/assets/"+ps.ByName("name")]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.typ)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := a.body
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	_, _ = w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
