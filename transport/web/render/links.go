package render

// The link blocks: link (preview cards, or one link given at the top level) and
// file (downloadable files). The rule they keep: an address becomes an href only
// through safeURL and a loaded image only through safeWebURL; a refused address
// leaves its text as plain text, never a link. Links to other sites open in a new
// tab with rel="noopener noreferrer".

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

func init() {
	register("link", viewLink)
	register("file", viewFile)
}

type linkView struct {
	Single bool // the top-level url form: the title is the link text
	Cards  []linkCard
	More   int
}

type linkCard struct {
	Href        string
	NewTab      bool
	Title       string
	Description string
	Image       string
	Favicon     string
	Host        string
	IsURL       bool // the title is the address itself (no title was given)
}

type linkData struct {
	URL         string `json:"url"`
	Title       Scalar `json:"title"`
	Description Scalar `json:"description"`
	Image       string `json:"image"`
	Favicon     string `json:"favicon"`
}

func viewLink(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		linkData
		Links []linkData `json:"links"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	var v linkView
	list := d.Links
	if len(list) > maxItems {
		v.More = len(list) - maxItems
		list = list[:maxItems]
	}
	if strings.TrimSpace(d.URL) != "" {
		top := d.linkData
		if len(list) == 0 {
			// The single form: its title is the link's text, not a heading.
			v.Single = true
			c.OwnTitle()
		} else {
			top.Title = "" // the block's title heads the list
		}
		v.Cards = append(v.Cards, linkCardOf(top))
	}
	for _, l := range list {
		v.Cards = append(v.Cards, linkCardOf(l))
	}
	return v, nil
}

func linkCardOf(l linkData) linkCard {
	k := linkCard{Description: strings.TrimSpace(l.Description.String()), Image: src(l.Image), Favicon: src(l.Favicon)}
	k.Href, _ = safeURL(l.URL)
	k.NewTab = isAbsoluteWeb(k.Href)
	k.Title = firstText(l.Title.String())
	if k.Title == "" {
		k.Title, k.IsURL = strings.TrimSpace(l.URL), true
	}
	k.Host = hostText(k.Href)
	return k
}

// hostText is what a reader needs to know of where a link leads: the host name
// ("example.com"), "This site" for this origin's paths, the address for mailto.
func hostText(safe string) string {
	if safe == "" {
		return ""
	}
	if strings.HasPrefix(safe, "/") {
		return "This site"
	}
	u, err := url.Parse(safe)
	if err != nil {
		return ""
	}
	if strings.EqualFold(u.Scheme, "mailto") {
		return "E-mail"
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// ---- file ----

type fileView struct {
	Files []fileItem
	More  int
}

type fileItem struct {
	Icon   string // image, video, file
	Name   string
	Href   string
	NewTab bool
	Type   string
	Size   string
}

func viewFile(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Files []struct {
			Name Scalar `json:"name"`
			URL  string `json:"url"`
			MIME string `json:"mime_type"`
			Size Number `json:"size_bytes"`
		} `json:"files"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	var v fileView
	files := d.Files
	if len(files) > maxItems {
		v.More = len(files) - maxItems
		files = files[:maxItems]
	}
	for i, f := range files {
		it := fileItem{Type: typeText(f.MIME, f.URL), Size: sizeText(f.Size)}
		it.Href, _ = safeURL(f.URL)
		it.NewTab = isAbsoluteWeb(it.Href)
		it.Name = firstText(f.Name.String(), fileName(it.Href), fmt.Sprintf("File %d", i+1))
		switch mediaKind(f.MIME, f.URL) {
		case "image":
			it.Icon = "image"
		case "video":
			it.Icon = "video"
		default:
			it.Icon = "file"
		}
		v.Files = append(v.Files, it)
	}
	return v, nil
}
