package render

import (
	"html/template"
	"strings"
)

// Icons are inline SVG (24×24 paths stroked in currentColor, so they follow the
// theme), never emoji or fonts. Agents name icons freely ("warning", "⚠️", "rocket"):
// iconAlias maps the names and emoji we recognise onto ours; anything else shows no
// icon rather than the agent's text.
var iconPaths = map[string]string{
	"info":        `<circle cx="12" cy="12" r="9"/><path d="M12 11v6M12 7.5v.01"/>`,
	"warning":     `<path d="M12 3 2 20h20L12 3z"/><path d="M12 10v4M12 17v.01"/>`,
	"error":       `<circle cx="12" cy="12" r="9"/><path d="m9 9 6 6M15 9l-6 6"/>`,
	"success":     `<circle cx="12" cy="12" r="9"/><path d="m8 12 3 3 5-6"/>`,
	"check":       `<path d="m5 12 5 5 9-10"/>`,
	"x":           `<path d="M6 6l12 12M18 6 6 18"/>`,
	"arrow-up":    `<path d="M12 19V5M6 11l6-6 6 6"/>`,
	"arrow-down":  `<path d="M12 5v14M6 13l6 6 6-6"/>`,
	"arrow-right": `<path d="M5 12h14M13 6l6 6-6 6"/>`,
	"clock":       `<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>`,
	"file":        `<path d="M6 3h8l4 4v14H6z"/><path d="M14 3v4h4"/>`,
	"folder":      `<path d="M3 6h6l2 2h10v11H3z"/>`,
	"link":        `<path d="M10 14a4 4 0 0 0 6 0l3-3a4 4 0 0 0-6-6l-1 1"/><path d="M14 10a4 4 0 0 0-6 0l-3 3a4 4 0 0 0 6 6l1-1"/>`,
	"external":    `<path d="M14 4h6v6M20 4l-9 9"/><path d="M18 14v6H4V6h6"/>`,
	"download":    `<path d="M12 4v11M7 10l5 5 5-5M5 20h14"/>`,
	"upload":      `<path d="M12 20V9M7 14l5-5 5 5M5 4h14"/>`,
	"comment":     `<path d="M4 5h16v11H9l-5 4z"/>`,
	"user":        `<circle cx="12" cy="8" r="4"/><path d="M4 21a8 8 0 0 1 16 0"/>`,
	"lock":        `<rect x="5" y="11" width="14" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>`,
	"star":        `<path d="m12 3 2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z"/>`,
	"image":       `<rect x="3" y="5" width="18" height="14" rx="2"/><circle cx="9" cy="10" r="2"/><path d="m21 16-5-5-9 8"/>`,
	"video":       `<rect x="3" y="6" width="13" height="12" rx="2"/><path d="m16 10 5-3v10l-5-3"/>`,
	"bell":        `<path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 20a2 2 0 0 0 4 0"/>`,
	"rocket":      `<path d="M12 15c-3-3-3-8 3-12 4 0 5 1 5 5-4 6-9 6-12 3z"/><path d="m9 15-4 4M7 13l-3 1 3-5 3 1M11 17l-1 3 5-3-1-3"/>`,
	"chevron":     `<path d="m9 6 6 6-6 6"/>`,
	"dot":         `<circle cx="12" cy="12" r="4"/>`,
	"chart":       `<path d="M4 20V4M4 20h16"/><path d="M8 16v-4M12 16V8M16 16v-6"/>`,
	"money":       `<rect x="3" y="6" width="18" height="12" rx="2"/><circle cx="12" cy="12" r="3"/>`,
	"calendar":    `<rect x="4" y="5" width="16" height="16" rx="2"/><path d="M4 10h16M9 3v4M15 3v4"/>`,
	"copy":        `<rect x="8" y="8" width="12" height="12" rx="2"/><path d="M16 8V4H4v12h4"/>`,
}

var iconAlias = map[string]string{
	"⚠️": "warning", "⚠": "warning", "warn": "warning", "alert": "warning", "danger": "error",
	"❌": "error", "✖": "x", "✅": "success", "✔": "check", "✔️": "check", "ok": "success", "done": "check",
	"ℹ️": "info", "ℹ": "info", "📁": "folder", "📂": "folder", "📄": "file", "📃": "file", "document": "file",
	"🔔": "bell", "🚀": "rocket", "🔗": "link", "🔒": "lock", "⭐": "star", "💰": "money", "💵": "money",
	"📈": "chart", "📊": "chart", "📅": "calendar", "🕒": "clock", "⏰": "clock", "time": "clock",
	"🖼️": "image", "🎥": "video", "👤": "user", "person": "user", "💬": "comment",
	"trending-up": "arrow-up", "up": "arrow-up", "down": "arrow-down", "trending-down": "arrow-down",
}

// Icon returns the inline SVG of a known icon name or alias, or "" for any other.
func Icon(name string) template.HTML {
	name = strings.TrimSpace(name)
	p, ok := iconPaths[name]
	if !ok {
		if a, ok2 := iconAlias[name]; ok2 {
			p, ok = iconPaths[a], true
		} else if a, ok2 := iconAlias[strings.ToLower(name)]; ok2 {
			p, ok = iconPaths[a], true
		} else {
			p, ok = iconPaths[strings.ToLower(name)]
		}
	}
	if !ok {
		return ""
	}
	return template.HTML(`<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">` + p + `</svg>`) // #nosec: constant paths
}
