package render

// The media blocks: image, gallery, embed and evidence_gallery. The rule they keep:
// nothing is loaded from an address safeWebURL refuses (only http(s) and this
// origin), nothing is linked that safeURL refuses, and an address that fails is
// said in words ("Image not shown: unsupported address"), never put in an
// attribute. Images never overflow their box. Only YouTube and Vimeo videos are
// framed, sandboxed, from the providers' player addresses (embed_providers.go);
// any other page an agent asks to embed is a link.

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"path"
	"strconv"
	"strings"
)

func init() {
	register("image", viewImage)
	register("gallery", viewGallery)
	register("embed", viewEmbed)
	register("evidence_gallery", viewEvidence)
	addFuncs(template.FuncMap{"humanBytes": humanBytes})
}

// humanBytes shows a size in bytes the way people read it: "512 bytes", "12.1 KB",
// "3 MB" (binary multiples, one decimal when under 100). "" for sizes that are not
// sizes (negative, NaN, infinite).
func humanBytes(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
		return ""
	}
	if n < 1024 {
		if n == 1 {
			return "1 byte"
		}
		return strconv.FormatFloat(math.Round(n), 'f', -1, 64) + " bytes"
	}
	units := []string{"KB", "MB", "GB", "TB", "PB", "EB"}
	u := -1
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	prec := 1
	if n >= 100 {
		prec = 0
	}
	s := strconv.FormatFloat(n, 'f', prec, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[u]
}

// sizeText is humanBytes of a size the agent may send as a number or a string.
func sizeText(n Number) string {
	if !n.OK {
		return ""
	}
	return humanBytes(n.V)
}

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true, ".svg": true, ".bmp": true, ".ico": true}
var videoExt = map[string]bool{".mp4": true, ".webm": true, ".mov": true, ".m4v": true, ".ogv": true}
var audioExt = map[string]bool{".mp3": true, ".wav": true, ".ogg": true, ".oga": true, ".m4a": true, ".flac": true, ".aac": true, ".opus": true}

// extOf is the lower-case extension of an address's path (".png"), "" if none.
func extOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	p := raw
	if err == nil {
		p = u.Path
	}
	return strings.ToLower(path.Ext(p))
}

// fileName is the last segment of an address's path, unescaped, or "".
func fileName(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ""
	}
	base := path.Base(u.Path)
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// mediaKind says what an item is from its MIME type, else its address's extension:
// "image", "video", "audio" or "file".
func mediaKind(mime, addr string) string {
	m := strings.ToLower(strings.TrimSpace(mime))
	switch {
	case strings.HasPrefix(m, "image/"):
		return "image"
	case strings.HasPrefix(m, "video/"):
		return "video"
	case strings.HasPrefix(m, "audio/"):
		return "audio"
	case m != "":
		return "file"
	}
	e := extOf(addr)
	switch {
	case imageExt[e]:
		return "image"
	case videoExt[e]:
		return "video"
	case audioExt[e]:
		return "audio"
	}
	return "file"
}

// typeText is a short, readable name of a file type: "PDF", "PNG image", or the
// MIME type as given (or the extension) when we have no nicer name.
func typeText(mime, addr string) string {
	m := strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = strings.TrimSpace(m[:i])
	}
	if n, ok := mimeNames[m]; ok {
		return n
	}
	if m != "" {
		if len(m) > 80 {
			return ""
		}
		return m
	}
	if e := extOf(addr); e != "" && len(e) <= 8 {
		return strings.ToUpper(e[1:])
	}
	return ""
}

var mimeNames = map[string]string{
	"application/pdf": "PDF", "image/png": "PNG image", "image/jpeg": "JPEG image", "image/gif": "GIF image",
	"image/webp": "WebP image", "image/svg+xml": "SVG image", "text/plain": "Text", "text/csv": "CSV",
	"text/markdown": "Markdown", "text/html": "HTML", "application/json": "JSON", "application/zip": "ZIP archive",
	"application/gzip": "Gzip archive", "video/mp4": "MP4 video", "video/webm": "WebM video", "audio/mpeg": "MP3 audio",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "Word document",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel spreadsheet",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation",
	"application/msword": "Word document", "application/vnd.ms-excel": "Excel spreadsheet",
}

// ---- image ----

type imageView struct {
	Src, Alt, Caption, Width string
	Unsafe                   bool
	Inline                   bool // a data: address: refused at publish with a warning, never drawn
}

func viewImage(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title   Scalar `json:"title"`
		URL     string `json:"url"`
		Alt     Scalar `json:"alt"`
		Width   Scalar `json:"width"`
		Caption Scalar `json:"caption"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := imageView{Caption: strings.TrimSpace(d.Caption.String()), Width: widthClass(d.Width)}
	v.Src, _ = safeWebURL(d.URL)
	v.Unsafe = v.Src == ""
	v.Inline = v.Unsafe && len(strings.TrimSpace(d.URL)) >= 5 && strings.EqualFold(strings.TrimSpace(d.URL)[:5], "data:")
	v.Alt = firstText(d.Alt.String(), v.Caption, d.Title.String())
	return v, nil
}

// firstText is the first of its arguments that is not blank, trimmed.
func firstText(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

// ---- gallery ----

type galleryView struct {
	ID     string // the carousel strip's DOM id
	Layout string // grid, list, carousel
	Cols   int    // 0: as many as fit
	Label  string
	Items  []galleryItem
	More   int
}

type galleryItem struct {
	Kind    string // image, video, audio, file
	Href    string
	NewTab  bool
	Thumb   string
	Caption string
	Name    string
	Type    string
	Size    string
	Alt     string
}

func viewGallery(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title  Scalar `json:"title"`
		Layout string `json:"layout"`
		MaxCol Number `json:"max_columns"`
		Items  []struct {
			URL       string `json:"url"`
			Thumbnail string `json:"thumbnail_url"`
			Caption   Scalar `json:"caption"`
			MIME      string `json:"mime_type"`
			Size      Number `json:"size_bytes"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := galleryView{ID: c.ID("strip"), Layout: d.Layout, Label: firstText(d.Title.String(), "Gallery")}
	if v.Layout != "list" && v.Layout != "carousel" {
		v.Layout = "grid"
	}
	if d.MaxCol.OK && d.MaxCol.V >= 1 {
		v.Cols = int(math.Min(d.MaxCol.V, 6))
	}
	items := d.Items
	if len(items) > maxItems {
		v.More = len(items) - maxItems
		items = items[:maxItems]
	}
	for i, it := range items {
		g := galleryItem{Kind: mediaKind(it.MIME, it.URL), Caption: strings.TrimSpace(it.Caption.String()),
			Type: typeText(it.MIME, it.URL), Size: sizeText(it.Size)}
		g.Href, _ = safeURL(it.URL)
		g.NewTab = isAbsoluteWeb(g.Href)
		g.Name = firstText(g.Caption, fileName(it.URL), fmt.Sprintf("Item %d", i+1))
		if g.Kind == "image" {
			g.Thumb = firstText(src(it.Thumbnail), src(it.URL))
			if g.Caption == "" {
				g.Alt = fmt.Sprintf("Image %d of %d", i+1, len(d.Items))
			}
		}
		v.Items = append(v.Items, g)
	}
	return v, nil
}

// ---- embed ----

type embedView struct {
	Kind     string // pdf, video, audio, player (a provider's video) or link
	Src      string // what loads (the player's address for a player); the link otherwise
	Href     string // player: the video's own address, to open it at the provider
	Provider string // player: YouTube or Vimeo
	Host     string // link: the address's host, said under the title
	Title    string
	Width    string // a w-* class
	Height   string // an emb-h* class
	NewTab   bool
}

func viewEmbed(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Title  Scalar `json:"title"`
		URL    string `json:"url"`
		Type   string `json:"embed_type"`
		Width  Scalar `json:"width"`
		Height Scalar `json:"height"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := embedView{Kind: d.Type, Width: widthClass(d.Width)}
	v.Src, _ = safeWebURL(d.URL)
	v.NewTab = isAbsoluteWeb(v.Src)
	if v.Src == "" {
		return v, nil
	}
	if f, ok := providerFrame(v.Src); ok {
		v.Kind, v.Provider, v.Href, v.Src = "player", f.Provider, v.Src, f.Src
		v.Title = firstText(d.Title.String(), f.Provider+" video")
		return v, nil
	}
	if v.Kind != "pdf" && v.Kind != "video" && v.Kind != "audio" {
		switch e := extOf(d.URL); {
		case e == ".pdf":
			v.Kind = "pdf"
		case videoExt[e] && v.Kind != "iframe":
			v.Kind = "video"
		case audioExt[e] && v.Kind != "iframe":
			v.Kind = "audio"
		default:
			v.Kind = "link" // a page: never framed (the CSP frames only the providers)
		}
	}
	if u, err := url.Parse(v.Src); err == nil {
		v.Host = u.Hostname()
	}
	v.Title = firstText(d.Title.String(), v.Src, "Embedded content")
	v.Height = embedHeight(d.Height, v.Kind)
	return v, nil
}

// embedHeight maps a height ("600", "600px", "30rem", "50vh") onto one of the fixed
// classes emb-h200 … emb-h900, with a default per kind (audio has its own height).
func embedHeight(h Scalar, kind string) string {
	if kind == "audio" {
		return ""
	}
	c := heightClass(h) // "mh-600": the same reading of the agent's height
	if n, err := strconv.Atoi(strings.TrimPrefix(c, "mh-")); err == nil {
		return "emb-h" + strconv.Itoa(min(max(n, 200), 900))
	}
	switch kind {
	case "pdf":
		return "emb-h700"
	case "video":
		return "" // its own aspect ratio
	}
	return "emb-h500"
}

// ---- evidence_gallery ----

type evidenceView struct {
	Items []evidenceItem
	More  int
}

type evidenceItem struct {
	Kind       string // image, video, document
	Src        string // what the browser loads (images, video)
	Href       string // where the item opens
	NewTab     bool
	Caption    string
	Name       string
	Type       string
	UploadedBy string
	Alt        string
}

func viewEvidence(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Items []struct {
			Type       string `json:"type"`
			URL        string `json:"url"`
			Caption    Scalar `json:"caption"`
			UploadedBy Scalar `json:"uploaded_by"`
		} `json:"items"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	var v evidenceView
	items := d.Items
	if len(items) > maxItems {
		v.More = len(items) - maxItems
		items = items[:maxItems]
	}
	for i, it := range items {
		e := evidenceItem{Kind: it.Type, Caption: strings.TrimSpace(it.Caption.String()), UploadedBy: strings.TrimSpace(it.UploadedBy.String())}
		if e.Kind != "image" && e.Kind != "video" && e.Kind != "document" {
			switch mediaKind("", it.URL) {
			case "image":
				e.Kind = "image"
			case "video":
				e.Kind = "video"
			default:
				e.Kind = "document"
			}
		}
		e.Href, _ = safeURL(it.URL)
		e.NewTab = isAbsoluteWeb(e.Href)
		e.Src = src(it.URL)
		e.Name = firstText(fileName(it.URL), fmt.Sprintf("Item %d", i+1))
		e.Type = typeText("", it.URL)
		e.Alt = firstText(e.Caption, fmt.Sprintf("Evidence %d", i+1))
		v.Items = append(v.Items, e)
	}
	return v, nil
}
