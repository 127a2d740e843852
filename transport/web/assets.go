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
	css := newAsset("folio", "css", "text/css; charset=utf-8", stripCSSComments(bytes.Join(append([][]byte{render.Stylesheet()}, app("css")...), []byte("\n"))))
	js := newAsset("folio", "js", "text/javascript; charset=utf-8", stripJSCommentLines(bytes.Join(append([][]byte{render.Script()}, app("js")...), []byte("\n"))))
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

// The bundles travel without the sources' comments (the all-blocks page's weight
// budget): a JS line whose first non-blank characters are // and every CSS
// /* … */ are dropped when the bundles are built. This keeps the code as written
// because no line of the scripts starts inside a string or a template (they use
// neither multi-line strings nor templates) and no stylesheet string holds /*
// (assets_test.go checks both on the sources).
func stripJSCommentLines(b []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if t := bytes.TrimSpace(line); bytes.HasPrefix(t, []byte("//")) || len(t) == 0 {
			continue
		}
		out = append(out, line...)
	}
	return out
}

func stripCSSComments(b []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(b, []byte("/*"))
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		j := bytes.Index(b[i+2:], []byte("*/"))
		if j < 0 {
			return out // an unclosed comment runs to the end, as in CSS
		}
		b = b[i+2+j+2:]
	}
}
