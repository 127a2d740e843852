package render

// Tests of the media and link blocks (image, gallery, embed, evidence_gallery,
// file, link): what loads, what links, what is said instead when an address is
// refused, and human sizes.

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestHumanBytes(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0 bytes", 1: "1 byte", 734: "734 bytes", 1023: "1023 bytes", 1024: "1 KB", 2048: "2 KB", 12345: "12.1 KB",
		1048576: "1 MB", 1532000: "1.5 MB", 150 * 1024 * 1024: "150 MB", 5 * (1 << 40): "5 TB", 1e21: "867 EB", 1e30: "867361737988 EB",
		-1: "", math.NaN(): "", math.Inf(1): "",
	} {
		if got := humanBytes(in); got != want {
			t.Errorf("humanBytes(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestImage(t *testing.T) {
	for _, tc := range []struct {
		name, data           string
		src, alt, cap, width string
		unsafe               bool
	}{
		{"full", `{"title":"Diagram","url":"https://example.com/a.png","alt":"arch","width":640,"caption":"Overview"}`, "https://example.com/a.png", "arch", "Overview", "w-75", false},
		{"alt from caption", `{"title":"T","url":"/files/a.png","caption":"Cap"}`, "/files/a.png", "Cap", "Cap", "", false},
		{"alt from title", `{"title":"T","url":"/files/a.png"}`, "/files/a.png", "T", "", "", false},
		{"no alt at all", `{"url":"/files/a.png"}`, "/files/a.png", "", "", "", false},
		{"percent width", `{"url":"/a.png","width":"50%"}`, "/a.png", "", "", "w-50", false},
		{"protocol-relative", `{"url":"//cdn.example.com/a.png","caption":"c"}`, "", "", "c", "", true},
		{"relative path", `{"url":"images/a:b.png"}`, "", "", "", "", true},
		{"javascript", `{"url":"javascript:alert(1)"}`, "", "", "", "", true},
		{"data", `{"url":"data:image/png;base64,AAAA"}`, "", "", "", "", true},
		{"mailto", `{"url":"mailto:a@b.c"}`, "", "", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, out := stRender(t, "image", tc.data, testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
			imgs := stAll(doc, stTag("img"))
			if tc.unsafe {
				said := "Image not shown: unsupported address."
				if tc.name == "data" {
					said = "Image not shown: inline images are not supported."
				}
				if len(imgs) != 0 || !strings.Contains(out, said) {
					t.Errorf("unsafe image drawn: %s", out)
				}
			} else {
				if len(imgs) != 1 {
					t.Fatalf("%d images", len(imgs))
				}
				im := imgs[0]
				if attr(im, "src") != tc.src || attr(im, "loading") != "lazy" || attr(im, "decoding") != "async" || !stHas(im, "alt") || attr(im, "alt") != tc.alt {
					t.Errorf("<img src=%q alt=%q>", attr(im, "src"), attr(im, "alt"))
				}
				fig := im.Parent
				if fig.Data != "figure" || (tc.width != "") != hasClass(fig, tc.width) {
					t.Errorf("figure class %q, want %q", attr(fig, "class"), tc.width)
				}
				if fc := stAll(fig, stTag("figcaption")); (len(fc) == 1) != (tc.cap != "") || tc.cap != "" && stText(fc[0]) != tc.cap {
					t.Errorf("figcaption %v, want %q", fc, tc.cap)
				}
			}
		})
	}
}

func TestGallery(t *testing.T) {
	doc, _ := stRender(t, "gallery", `{"title":"Shots","max_columns":3,"items":[
		{"url":"https://example.com/1.png","thumbnail_url":"https://example.com/1_t.png","caption":"One","mime_type":"image/png","size_bytes":2048},
		{"url":"/files/2.jpg"},
		{"url":"/files/report.pdf","mime_type":"application/pdf","size_bytes":"12345"},
		{"url":"data:image/png;base64,iVBORw0KGgo=","caption":"Inline"},
		{"url":"/files/x.png","thumbnail_url":"javascript:alert(1)","caption":"Bad thumb"}]}`, testOptions())
	stNoFallback(t, doc)
	stSafe(t, doc)
	ul := stAll(doc, stClass("gal"))
	if len(ul) != 1 || !hasClass(ul[0], "gal-grid") || !hasClass(ul[0], "gal-cols-3") {
		t.Fatalf("gallery list: %v", ul)
	}
	items := stAll(doc, stClass("gal-item"))
	if len(items) != 5 {
		t.Fatalf("%d items", len(items))
	}
	// 1: the thumbnail loads, the link leads to the full image, in a new tab
	if items[0].Data != "a" || attr(items[0], "href") != "https://example.com/1.png" || attr(items[0], "rel") != "noopener noreferrer" || attr(items[0], "target") != "_blank" {
		t.Errorf("item 1 link: %s", attr(items[0], "href"))
	}
	if im := stAll(items[0], stTag("img")); len(im) != 1 || attr(im[0], "src") != "https://example.com/1_t.png" || attr(im[0], "alt") != "" {
		t.Errorf("item 1 thumbnail")
	}
	if got := stText(items[0]); got != "One PNG image · 2 KB (opens in a new tab)" {
		t.Errorf("item 1 reads %q", got)
	}
	// 2: no thumbnail: the image itself; no caption: the alt says which image it is
	if im := stAll(items[1], stTag("img")); len(im) != 1 || attr(im[0], "src") != "/files/2.jpg" || attr(im[0], "alt") != "Image 2 of 5" {
		t.Errorf("item 2 image: %v", im)
	}
	// 3: not an image: a file icon, its name, type and size
	if len(stAll(items[2], stTag("img"))) != 0 || !strings.Contains(stText(items[2]), "report.pdf PDF · 12.1 KB") {
		t.Errorf("item 3 reads %q", stText(items[2]))
	}
	// 4: a data: address is neither loaded nor linked
	if items[3].Data == "a" || len(stAll(items[3], stTag("img"))) != 0 || !strings.Contains(stText(items[3]), "unsupported address") {
		t.Errorf("item 4: %s %q", items[3].Data, stText(items[3]))
	}
	// 5: an unsafe thumbnail falls back to the image itself
	if im := stAll(items[4], stTag("img")); len(im) != 1 || attr(im[0], "src") != "/files/x.png" {
		t.Errorf("item 5 thumbnail")
	}
}

func TestGalleryLayouts(t *testing.T) {
	items := `"items":[{"url":"/a.png","caption":"A"},{"url":"/b.png","caption":"B"}]`
	for _, tc := range []struct{ data, class, cols string }{
		{`{` + items + `}`, "gal-grid", ""},
		{`{"layout":"list",` + items + `}`, "gal-list", ""},
		{`{"layout":"grid","max_columns":9,` + items + `}`, "gal-grid", "gal-cols-6"},
		{`{"layout":"grid","max_columns":0,` + items + `}`, "gal-grid", ""},
		{`{"layout":"grid","max_columns":"2",` + items + `}`, "gal-grid", "gal-cols-2"},
		{`{"layout":"sideways",` + items + `}`, "gal-grid", ""},
	} {
		doc, _ := stRender(t, "gallery", tc.data, testOptions())
		ul := stAll(doc, stClass("gal"))[0]
		if !hasClass(ul, tc.class) || tc.cols != "" && !hasClass(ul, tc.cols) || tc.cols == "" && strings.Contains(attr(ul, "class"), "gal-cols") {
			t.Errorf("%s: class %q", tc.data, attr(ul, "class"))
		}
	}
	// The carousel: a focusable, named strip that scrolls.
	doc, _ := stRender(t, "gallery", `{"title":"Shots","layout":"carousel",`+items+`}`, testOptions())
	strip := stAll(doc, stClass("gal-strip"))
	if len(strip) != 1 || attr(strip[0], "tabindex") != "0" || attr(strip[0], "role") != "region" || attr(strip[0], "aria-label") != "Shots, scrolls sideways" {
		t.Errorf("carousel strip: %v", strip)
	}
	if ul := stAll(strip[0], stClass("gal-carousel")); len(ul) != 1 {
		t.Errorf("no carousel list in the strip")
	}
}

func TestEmbed(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		tag        string
		attrs      map[string]string
		absent     []string
		height     string
	}{
		{"pdf: a document card, not a frame a browser will not fill", `{"title":"Spec","url":"https://example.com/spec.pdf","embed_type":"pdf","width":"100%","height":600}`, "a",
			map[string]string{"href": "https://example.com/spec.pdf", "rel": "noopener noreferrer", "target": "_blank"}, nil, ""},
		{"video", `{"url":"/files/v.mp4","embed_type":"video","height":"20rem"}`, "video",
			map[string]string{"controls": "", "preload": "metadata", "src": "/files/v.mp4"}, []string{"autoplay"}, "emb-h300"},
		{"audio", `{"url":"/files/a.mp3","embed_type":"audio","height":900}`, "audio", map[string]string{"controls": "", "src": "/files/a.mp3"}, nil, ""},
		{"type guessed from the address", `{"url":"/files/doc.pdf"}`, "a", map[string]string{"href": "/files/doc.pdf"}, nil, ""},
		{"huge height is capped", `{"url":"https://x.example/v.webm","embed_type":"video","height":"99999px"}`, "video", nil, nil, "emb-h900"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "embed", tc.data, testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
			el := stAll(doc, stTag(tc.tag))
			if tc.tag == "a" {
				el = stAll(doc, func(n *html.Node) bool { return n.Data == "a" && hasClass(n, "emb-doc") })
			}
			if len(el) != 1 {
				t.Fatalf("no <%s>", tc.tag)
			}
			for k, v := range tc.attrs {
				if !stHas(el[0], k) || v != "" && attr(el[0], k) != v || v == "" && attr(el[0], k) != "" && k == "sandbox" {
					t.Errorf("%s=%q, want %q", k, attr(el[0], k), v)
				}
			}
			for _, k := range tc.absent {
				if stHas(el[0], k) {
					t.Errorf("has %s", k)
				}
			}
			if tc.height != "" && !hasClass(el[0], tc.height) {
				t.Errorf("class %q, want %s", attr(el[0], "class"), tc.height)
			}
			open := stAll(doc, func(n *html.Node) bool { return n.Data == "a" && stText(n) == "Open in a new tab" })
			if tc.tag != "a" && (len(open) != 1 || attr(open[0], "href") != attr(el[0], "src") || attr(open[0], "rel") != "noopener noreferrer") {
				t.Errorf("no plain link to open it")
			}
		})
	}
	for _, bad := range []string{`{"url":"javascript:alert(1)","embed_type":"iframe"}`, `{"url":"data:text/html,<script>alert(1)</script>"}`, `{"url":"mailto:a@b.c","embed_type":"video"}`, `{}`} {
		doc, out := stRender(t, "embed", bad, testOptions())
		stNoFallback(t, doc)
		stSafe(t, doc)
		if len(stAll(doc, func(n *html.Node) bool {
			return n.Data == "iframe" || n.Data == "video" || n.Data == "audio" || n.Data == "a" && !hasClass(n, "blk-comment") // the frame's comment link
		})) != 0 || !strings.Contains(out, "Not embedded: unsupported address.") {
			t.Errorf("%s: %s", bad, out)
		}
	}
}

// TestEmbedFramesOnlyYouTubeAndVimeo: a YouTube or Vimeo address, in any of its
// usual forms, becomes the provider's player (youtube-nocookie.com/embed/ID,
// player.vimeo.com/video/ID) in a sandboxed frame, with a link to the video; the
// frame's address is built from the id alone. Any other page is a link card and
// no frame at all (before, any https page was framed).
func TestEmbedFramesOnlyYouTubeAndVimeo(t *testing.T) {
	players := map[string]string{
		`{"url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=x","title":"Demo"}`:       "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
		`{"url":"https://youtu.be/dQw4w9WgXcQ?t=90","embed_type":"video"}`:                  "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=90",
		`{"url":"https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=1m30s","embed_type":"iframe"}`: "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=90",
		`{"url":"https://www.youtube.com/shorts/dQw4w9WgXcQ"}`:                              "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
		`{"url":"https://www.youtube.com/embed/dQw4w9WgXcQ"}`:                               "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
		`{"url":"https://vimeo.com/76979871","embed_type":"video"}`:                         "https://player.vimeo.com/video/76979871",
		`{"url":"https://vimeo.com/76979871/abc123def"}`:                                    "https://player.vimeo.com/video/76979871?h=abc123def",
		`{"url":"https://player.vimeo.com/video/76979871"}`:                                 "https://player.vimeo.com/video/76979871",
		`{"url":"https://vimeo.com/channels/staffpicks/76979871"}`:                          "https://player.vimeo.com/video/76979871",
	}
	for data, want := range players {
		doc, _ := stRender(t, "embed", data, testOptions())
		stSafe(t, doc)
		frames := stAll(doc, stTag("iframe"))
		if len(frames) != 1 {
			t.Errorf("%s: %d frames", data, len(frames))
			continue
		}
		f := frames[0]
		if attr(f, "src") != want {
			t.Errorf("%s: frame %q, want %q", data, attr(f, "src"), want)
		}
		if got := attr(f, "sandbox"); got != "allow-scripts allow-same-origin allow-popups allow-presentation" {
			t.Errorf("%s: sandbox %q", data, got)
		}
		if attr(f, "referrerpolicy") != "strict-origin" || attr(f, "title") == "" {
			t.Errorf("%s: referrerpolicy %q, title %q", data, attr(f, "referrerpolicy"), attr(f, "title"))
		}
		allowed := false
		for _, o := range FrameOrigins {
			allowed = allowed || strings.HasPrefix(attr(f, "src"), o+"/")
		}
		if !allowed {
			t.Errorf("%s: the frame's origin is not in FrameOrigins", data)
		}
		if open := stAll(doc, func(n *html.Node) bool { return n.Data == "a" && strings.HasPrefix(stText(n), "Open on ") }); len(open) != 1 {
			t.Errorf("%s: no link to the video", data)
		}
	}
	links := []string{
		`{"url":"https://status.example.com","embed_type":"iframe","title":"Status"}`,
		`{"url":"https://example.com/watch?v=dQw4w9WgXcQ","embed_type":"video"}`,
		`{"url":"https://www.youtube.com/watch?v=short"}`,
		`{"url":"https://www.youtube.com/watch?v=dQw4w9WgXc%22"}`,
		`{"url":"https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ"}`,
		`{"url":"https://user@www.youtube.com/watch?v=dQw4w9WgXcQ"}`,
		`{"url":"https://vimeo.com/76979871/x%3Cy"}`,
		`{"url":"https://vimeo.com/about"}`,
		`{"url":"https://www.youtube.com/@channel"}`,
	}
	for _, data := range links {
		doc, _ := stRender(t, "embed", data, testOptions())
		stSafe(t, doc)
		if n := len(stAll(doc, stTag("iframe"))); n != 0 {
			t.Errorf("%s: framed", data)
		}
		if strings.Contains(data, `"video"`) && !strings.Contains(data, "youtube") {
			continue // a video file address plays in a native player
		}
		card := stAll(doc, func(n *html.Node) bool { return n.Data == "a" && hasClass(n, "emb-doc") })
		if len(card) != 1 || attr(card[0], "rel") != "noopener noreferrer" {
			t.Errorf("%s: not a link card", data)
		}
	}
}

func TestEvidenceGallery(t *testing.T) {
	doc, _ := stRender(t, "evidence_gallery", `{"title":"Evidence","items":[
		{"type":"image","url":"https://example.com/shot.png","caption":"Screen","uploaded_by":"agent:bot"},
		{"type":"document","url":"/files/report.pdf"},
		{"type":"video","url":"https://example.com/v.mp4","caption":"Repro"},
		{"url":"/files/guess.png"},
		{"type":"image","url":"javascript:alert(1)","caption":"Bad"}]}`, testOptions())
	stNoFallback(t, doc)
	stSafe(t, doc)
	items := stAll(doc, stClass("ev-item"))
	if len(items) != 5 {
		t.Fatalf("%d items", len(items))
	}
	img := stAll(items[0], stTag("img"))
	if len(img) != 1 || attr(img[0], "alt") != "Screen" || attr(img[0].Parent, "href") != "https://example.com/shot.png" || attr(img[0].Parent, "target") != "_blank" {
		t.Errorf("image item")
	}
	if got := stText(items[0]); got != "Screen Uploaded by agent:bot" {
		t.Errorf("image item reads %q", got)
	}
	doc2 := stAll(items[1], stTag("a"))
	if len(doc2) != 1 || attr(doc2[0], "href") != "/files/report.pdf" || stText(doc2[0]) != "report.pdf" || !strings.Contains(stText(items[1]), "PDF") {
		t.Errorf("document item reads %q", stText(items[1]))
	}
	if v := stAll(items[2], stTag("video")); len(v) != 1 || !stHas(v[0], "controls") || attr(v[0], "preload") != "metadata" {
		t.Errorf("video item")
	}
	if !hasClass(items[3], "ev-image") {
		t.Errorf("an untyped .png is not shown as an image")
	}
	if len(stAll(items[4], stTag("img"))) != 0 || !strings.Contains(stText(items[4]), "unsupported address") {
		t.Errorf("unsafe image item reads %q", stText(items[4]))
	}
}

func TestFile(t *testing.T) {
	doc, _ := stRender(t, "file", `{"title":"Artifacts","files":[
		{"name":"report.pdf","url":"https://example.com/report.pdf","mime_type":"application/pdf","size_bytes":12345},
		{"name":"log.txt","url":"/v1/pages/p_1/files/f_1"},
		{"url":"/files/shot.png","size_bytes":-5},
		{"name":"evil","url":"javascript:alert(1)","mime_type":"text/html"}]}`, testOptions())
	stNoFallback(t, doc)
	stSafe(t, doc)
	rows := stAll(doc, stClass("file-row"))
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, w := range []struct{ text, href, target string }{
		{"report.pdf (opens in a new tab) PDF · 12.1 KB", "https://example.com/report.pdf", "_blank"},
		{"log.txt", "/v1/pages/p_1/files/f_1", ""},
		{"shot.png PNG", "/files/shot.png", ""},
		{"evil Not linked: unsupported address", "", ""},
	} {
		if got := stText(rows[i]); got != w.text {
			t.Errorf("row %d reads %q, want %q", i, got, w.text)
		}
		a := stAll(rows[i], stTag("a"))
		if w.href == "" {
			if len(a) != 0 {
				t.Errorf("row %d is linked", i)
			}
			continue
		}
		if len(a) != 1 || attr(a[0], "href") != w.href || attr(a[0], "target") != w.target || attr(a[0], "rel") != "noopener noreferrer" {
			t.Errorf("row %d link %v", i, a)
		}
		if len(stAll(rows[i], stTag("svg"))) == 0 {
			t.Errorf("row %d has no type icon", i)
		}
	}
}

func TestLinkCards(t *testing.T) {
	doc, _ := stRender(t, "link", `{"title":"Related","links":[
		{"url":"https://www.example.com/a","title":"Example","description":"A site","image":"https://example.com/og.png","favicon":"/favicon.ico"},
		{"url":"https://example.org"},
		{"url":"/v1/docs","title":"Docs"},
		{"url":"javascript:alert(1)","title":"Evil","image":"javascript:alert(1)","favicon":"data:image/png;base64,AAAA"}]}`, testOptions())
	stNoFallback(t, doc)
	stSafe(t, doc)
	if h := stAll(doc, stClass("blk-title")); len(h) != 1 || stText(h[0]) != "Related" {
		t.Errorf("the list form keeps the block title as its heading")
	}
	cards := stAll(doc, stClass("lnk-card"))
	if len(cards) != 4 {
		t.Fatalf("%d cards", len(cards))
	}
	a := stAll(cards[0], stTag("a"))
	if len(a) != 1 || attr(a[0], "href") != "https://www.example.com/a" || attr(a[0], "rel") != "noopener noreferrer" || attr(a[0], "target") != "_blank" {
		t.Errorf("card 1 link")
	}
	if got := stText(cards[0]); got != "Example (opens in a new tab) A site example.com" {
		t.Errorf("card 1 reads %q", got)
	}
	imgs := stAll(cards[0], stTag("img"))
	if len(imgs) != 2 || attr(imgs[0], "src") != "https://example.com/og.png" || attr(imgs[1], "src") != "/favicon.ico" || !stHas(imgs[1], "alt") || attr(imgs[1], "alt") != "" {
		t.Errorf("card 1 images: %v", imgs)
	}
	if got := stText(cards[1]); !strings.HasPrefix(got, "https://example.org") || !strings.HasSuffix(got, "example.org") {
		t.Errorf("card 2 (title from the url) reads %q", got)
	}
	if a := stAll(cards[2], stTag("a")); len(a) != 1 || stHas(a[0], "target") || !strings.Contains(stText(cards[2]), "This site") {
		t.Errorf("card 3 (same origin) %q", stText(cards[2]))
	}
	if len(stAll(cards[3], stTag("a"))) != 0 || len(stAll(cards[3], stTag("img"))) != 0 || !strings.Contains(stText(cards[3]), "Evil") {
		t.Errorf("card 4 (unsafe) is linked or loads something")
	}
}

func TestLinkSingleFormIsTheLinkItself(t *testing.T) {
	doc, _ := stRender(t, "link", `{"url":"https://example.com","title":"One link","description":"single form"}`, testOptions())
	stNoFallback(t, doc)
	if len(stAll(doc, stClass("blk-title"))) != 0 {
		t.Errorf("the single form's title is drawn as a heading too")
	}
	a := stAll(doc, func(n *html.Node) bool { return n.Data == "a" && attr(n, "href") == "https://example.com" })
	if len(a) != 1 || stText(a[0]) != "One link (opens in a new tab)" {
		t.Errorf("the title is not the link text")
	}
	// Both forms at once: the list keeps its heading and the top-level url is a card.
	doc, _ = stRender(t, "link", `{"title":"Both","url":"https://a.example","links":[{"url":"https://b.example"}]}`, testOptions())
	if len(stAll(doc, stClass("lnk-card"))) != 2 || len(stAll(doc, stClass("blk-title"))) != 1 {
		t.Errorf("both forms")
	}
}

func TestMediaOddData(t *testing.T) {
	for typ, datas := range map[string][]string{
		"image":            {`{}`, `{"url":7,"width":{},"alt":null}`, `{"url":"https://x.example/a.png","width":-40}`, `{"width":1e400,"url":"/a"}`},
		"gallery":          {`{}`, `{"items":"x"}`, `{"items":[null,1,{"url":null,"size_bytes":"big","mime_type":7}],"max_columns":-3}`, `{"items":[{"url":"/a","size_bytes":1e400}],"max_columns":1e400}`},
		"embed":            {`{"url":5}`, `{"url":"/x","height":-1,"width":"0/0"}`, `{"url":"/x","embed_type":["pdf"]}`},
		"evidence_gallery": {`{}`, `{"items":[null,{"type":5,"url":[]}]}`},
		"file":             {`{}`, `{"files":[null,{"name":{},"url":1,"size_bytes":"NaN"}]}`},
		"link":             {`{}`, `{"links":null}`, `{"links":[null,{"url":3}]}`, `{"url":"javascript:alert(1)"}`},
	} {
		for _, data := range datas {
			doc, _ := stRender(t, typ, data, testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
		}
	}
	many := func(item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", maxItems+9), ",") + "]"
	}
	for _, tc := range []struct{ typ, data, note string }{
		{"gallery", `{"items":` + many(`{"url":"/a.png"}`) + `}`, "9 more items not shown."},
		{"evidence_gallery", `{"items":` + many(`{"url":"/a.pdf"}`) + `}`, "9 more items not shown."},
		{"file", `{"files":` + many(`{"name":"a","url":"/a"}`) + `}`, "9 more files not shown."},
		{"link", `{"links":` + many(`{"url":"/a"}`) + `}`, "9 more links not shown."},
	} {
		_, out := stRender(t, tc.typ, tc.data, testOptions())
		if !noteOrCut(out, tc.note) {
			t.Errorf("%s: no note %q", tc.typ, tc.note)
		}
	}
}

func TestMediaHostileInputIsInert(t *testing.T) {
	for typ, tmpl := range map[string]string{
		"image":            `{"title":"t","url":"u","alt":"a","width":"w","caption":"c"}`,
		"gallery":          `{"title":"t","layout":"carousel","items":[{"url":"u","thumbnail_url":"t","caption":"c","mime_type":"m"}]}`,
		"embed":            `{"title":"t","url":"u","embed_type":"iframe","width":"w","height":"h"}`,
		"evidence_gallery": `{"title":"t","items":[{"type":"image","url":"u","caption":"c","uploaded_by":"b"},{"type":"document","url":"u"},{"type":"video","url":"u"}]}`,
		"file":             `{"title":"t","files":[{"name":"n","url":"u","mime_type":"m"}]}`,
		"link":             `{"title":"t","links":[{"url":"u","title":"t","description":"d","image":"i","favicon":"f"}]}`,
	} {
		for _, p := range stHostile {
			doc, out := stRender(t, typ, stFill(t, tmpl, p), testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
			if strings.Contains(out, "<script>window") || strings.Contains(out, "<img src=x") {
				t.Errorf("%s: payload survived unescaped", typ)
			}
		}
	}
	// Single-form link with hostile fields.
	for _, p := range stHostile {
		doc, _ := stRender(t, "link", stFill(t, `{"url":"u","title":"t","description":"d"}`, p), testOptions())
		stSafe(t, doc)
	}
}
