package protocols

// Folio has no icon block, so an Icon becomes a text block holding a glyph
// for the A2UI basic-catalog icon name, or the name as a :shortcode:.

var iconGlyphs = map[string]string{
	"accountCircle": "👤", "person": "👤", "add": "➕", "arrowBack": "←", "arrowForward": "→",
	"attachFile": "📎", "calendarToday": "📅", "event": "📅", "call": "📞", "phone": "📞",
	"camera": "📷", "photo": "🖼️", "check": "✔️", "close": "✖️", "delete": "🗑️",
	"download": "⬇️", "upload": "⬆️", "edit": "✏️", "error": "⛔", "warning": "⚠️",
	"info": "ℹ️", "help": "❓", "favorite": "❤️", "folder": "📁", "home": "🏠",
	"locationOn": "📍", "lock": "🔒", "lockOpen": "🔓", "mail": "✉️", "menu": "☰",
	"notifications": "🔔", "notificationsOff": "🔕", "payment": "💳", "play": "▶️",
	"pause": "⏸️", "stop": "⏹️", "print": "🖨️", "refresh": "🔄", "search": "🔍",
	"send": "📤", "settings": "⚙️", "share": "🔗", "shoppingCart": "🛒", "star": "⭐",
	"visibility": "👁️", "volumeUp": "🔊", "volumeOff": "🔇",
}

// iconName resolves an Icon's name: a literal, a binding, or {svgPath} (unnamed).
func (r *renderer) iconName(c *component, scope string) string {
	if m, ok := asMap(c.props["name"]); ok {
		if _, svg := m["svgPath"]; svg {
			return "icon"
		}
	}
	if n := r.text(c.props["name"], scope, c.id); n != "" {
		return n
	}
	return "icon"
}

func iconGlyph(name string) string {
	if g, ok := iconGlyphs[name]; ok {
		return g
	}
	return ":" + name + ":"
}
