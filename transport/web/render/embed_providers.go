package render

// Video providers an embed block may frame. The rule it keeps: the review page
// frames only the providers' own player addresses, built here from an id that is
// checked character by character (never the agent's URL as sent), and the page's
// Content-Security-Policy allows frames from exactly FrameOrigins. Any other
// address an agent asks to embed as a page is shown as a link.

import (
	"net/url"
	"strconv"
	"strings"
)

// FrameOrigins are the only origins the review page may frame (its CSP frame-src).
var FrameOrigins = []string{"https://www.youtube-nocookie.com", "https://player.vimeo.com"}

// videoFrame is a provider's player for one video.
type videoFrame struct {
	Provider string // "YouTube" or "Vimeo"
	Src      string // the player address (under one of FrameOrigins)
}

// providerFrame returns the player of a YouTube or Vimeo video address (watch,
// short, share, embed and player forms), or ok false for any other address.
func providerFrame(raw string) (videoFrame, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || (u.Port() != "" && u.Port() != "443") {
		return videoFrame{}, false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	host = strings.TrimPrefix(host, "m.")
	seg := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch host {
	case "youtube.com", "youtube-nocookie.com", "youtu.be", "music.youtube.com":
		id := ""
		switch {
		case host == "youtu.be" && len(seg) == 1:
			id = seg[0]
		case len(seg) == 1 && seg[0] == "watch":
			id = u.Query().Get("v")
		case len(seg) == 2 && (seg[0] == "embed" || seg[0] == "shorts" || seg[0] == "live" || seg[0] == "v"):
			id = seg[1]
		}
		if !youTubeID(id) {
			return videoFrame{}, false
		}
		src := "https://www.youtube-nocookie.com/embed/" + id
		if s := startSeconds(firstText(u.Query().Get("t"), u.Query().Get("start"))); s > 0 {
			src += "?start=" + strconv.Itoa(s)
		}
		return videoFrame{Provider: "YouTube", Src: src}, true
	case "vimeo.com", "player.vimeo.com":
		// vimeo.com/ID, vimeo.com/ID/HASH (unlisted), vimeo.com/channels/x/ID,
		// player.vimeo.com/video/ID (?h=HASH)
		var id, hash string
		switch {
		case host == "player.vimeo.com" && len(seg) == 2 && seg[0] == "video":
			id, hash = seg[1], u.Query().Get("h")
		case host == "vimeo.com" && len(seg) >= 1 && digits(seg[0]):
			id = seg[0]
			if len(seg) == 2 {
				hash = seg[1]
			}
		case host == "vimeo.com" && len(seg) == 3 && seg[0] == "channels":
			id = seg[2]
		}
		if !digits(id) || len(id) > 20 {
			return videoFrame{}, false
		}
		src := "https://player.vimeo.com/video/" + id
		if hash != "" {
			if !alnum(hash) || len(hash) > 32 {
				return videoFrame{}, false
			}
			src += "?h=" + hash
		}
		return videoFrame{Provider: "Vimeo", Src: src}, true
	}
	return videoFrame{}, false
}

// youTubeID: YouTube video ids are 11 characters of [A-Za-z0-9_-].
func youTubeID(s string) bool {
	if len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// startSeconds reads a YouTube start time: "90", "90s" or "1h2m3s"; 0 when absent
// or unreadable.
func startSeconds(s string) int {
	if digits(s) && len(s) <= 6 {
		n, _ := strconv.Atoi(s)
		return n
	}
	total, n := 0, 0
	seen := false
	for i := 0; i < len(s) && i < 12; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n, seen = n*10+int(c-'0'), true
		case c == 'h' && seen:
			total, n, seen = total+3600*n, 0, false
		case c == 'm' && seen:
			total, n, seen = total+60*n, 0, false
		case c == 's' && seen:
			total, n, seen = total+n, 0, false
		default:
			return 0
		}
	}
	if seen {
		return 0 // a number without its unit, after others
	}
	return total
}
