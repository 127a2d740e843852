package blocks

// The block catalog: every block type of spec 2.6 with the members of its data.
// It is the single source for validation (validate.go, rules.go), nesting
// (nesting.go) and the JSON Schema (schema.go).

var (
	catalog []*blockType          // in spec order
	byName  map[string]*blockType // catalog by type name
)

// Built in init, not in a variable initializer, because the cross-field rules
// refer back to the catalog when they validate nested blocks.
func init() {
	catalog = buildCatalog()
	byName = make(map[string]*blockType, len(catalog))
	for _, bt := range catalog {
		byName[bt.name] = bt
		bt.nests = holdsBlocks(bt.data, map[*object]bool{})
	}
}

// Types returns the names of the catalog's block types in spec order.
func Types() []string {
	names := make([]string, len(catalog))
	for i, bt := range catalog {
		names[i] = bt.name
	}
	return names
}

// Known reports whether t is a catalog type. Other types are accepted and
// rendered generically.
func Known(t string) bool { return byName[t] != nil }

// newType builds a catalog entry; every type has the common optional title.
func newType(name, doc string, fields ...field) *blockType {
	return &blockType{name: name, doc: doc, data: &object{fields: append([]field{str("title")}, fields...)}}
}

// with attaches cross-field rules or "at least one of" members to a type.
func (bt *blockType) with(check func(*checker, string, map[string]any), anyOf ...string) *blockType {
	bt.data.check, bt.data.anyOf = check, anyOf
	return bt
}

var (
	styleStatus = []string{"info", "warning", "error", "success"}
	trends      = []string{"up", "down", "flat"}
	goodWays    = []string{"up", "down"} // a metric's good direction: what its trend colour means
	formTypes   = []string{"text", "textarea", "number", "select", "multi_select", "checkbox",
		"radio", "date", "datetime", "file", "email", "url"}
	chartTypes = []string{"bar", "line", "pie", "area", "scatter", "radar"}
)

func buildCatalog() []*blockType {
	treeNode := &object{name: "tree_node"}
	treeNode.fields = []field{req(str("label")), arrayOf("children", ref("", treeNode)), str("icon")}

	callout := newType("callout", "A highlighted note; content is Markdown (message is the older name).",
		str("content"), deprecated(str("message")), enum("style", styleStatus...), str("icon"), boolean("collapsible"),
	).with(nil, "content", "message")
	callout.data.normalize = calloutMessage

	return []*blockType{
		newType("layout", "Side-by-side columns, each holding nested blocks.",
			req(listOf("columns", size("width"), blockList("blocks")))),
		newType("group", "A titled, optionally collapsible group of nested blocks.",
			boolean("collapsible"), boolean("default_collapsed"), req(blockList("blocks"))),
		newType("tab", "Tabs, each holding nested blocks.",
			req(listOf("tabs", req(str("label")), blockList("blocks")))),
		newType("key_value", "Labelled values.",
			req(listOf("pairs", req(str("key")), scalar("value"),
				enum("style", "normal", "highlight", "muted"), enum("badge", styleStatus...))),
			enum("layout", "vertical", "horizontal", "grid")),
		newType("text", "Markdown text.", req(str("content"))),
		newType("table", "Rows of cells keyed by column key.",
			req(listOf("columns", req(str("key")), str("label"), size("width"), enum("align", "left", "center", "right"))),
			arrayOf("rows", field{kind: kMap, elem: &field{kind: kScalar, nullable: true}}),
			boolean("sortable"), integer("max_rows", 1), str("footer"),
		).with(checkTable),
		callout,
		newType("code", "Source code or other preformatted text.",
			req(str("content")), str("language"), boolean("line_numbers"),
			arrayOf("highlight_lines", integer("", 1)), size("max_height"),
		).with(checkCode),
		newType("divider", "A horizontal rule.",
			enum("style", "solid", "dashed", "dotted"), enum("spacing", "small", "medium", "large")),
		newType("metric", "One metric (value) or a list of metrics (items).",
			scalar("value"), scalar("change"), enum("trend", trends...), enum("good", goodWays...), str("description"), str("icon"),
			listOf("items", str("label"), req(scalar("value")), enum("trend", trends...), enum("good", goodWays...),
				scalar("trend_value"), numbers("sparkline")),
		).with(nil, "value", "items"),
		newType("chart", "A bar, line, pie, area, scatter or radar chart.",
			withHint(req(enum("chart_type", chartTypes...)), "the chart kind goes in chart_type"),
			withHint(req(objectOf("data", labels("labels"), req(listOf("datasets",
				str("label"), req(arrayOf("data", field{kind: kPoint, nullable: true})), anyValue("color"))),
			)), "labels and datasets go inside data.data"),
			objectOf("options", str("x_axis_label"), str("y_axis_label"), boolean("show_legend")),
			listOf("annotations", scalar("x"), str("label"), str("color")),
		).with(checkChart),
		newType("timeline", "Dated events.",
			req(listOf("events", timestamp("time"), req(str("event")), str("detail"),
				enum("status", "completed", "current", "pending"), str("icon")))),
		newType("buttons", "Links and action buttons.",
			req(listOf("items", req(str("label")), link("url"), str("action_id"),
				enum("style", "primary", "secondary", "danger"))),
			enum("layout", "horizontal", "vertical"),
		).with(checkButtons),
		newType("logs", "Log lines.",
			req(listOf("lines", str("time"), enum("level", "info", "warn", "error", "debug"), req(str("message")))),
			size("max_height"), boolean("auto_scroll")),
		newType("progress", "A progress bar: value out of max.",
			req(number("value")), number("max"), str("label"), str("color"), boolean("show_percentage"),
		).with(checkProgress),
		newType("stepper", "Steps with the current one marked.",
			integer("current", 0), req(listOf("steps", req(str("label")), str("description"))),
		).with(checkStepper),
		newType("image", "An image.",
			req(imageURL("url")), str("alt"), size("width"), str("caption")),
		newType("countdown", "A countdown to a moment.",
			req(timestamp("target")), str("expired_message"), enum("style", "info", "warning", "danger")),
		newType("comparison", "Options compared field by field.",
			req(listOf("items", req(str("label")), boolean("highlight"),
				listOf("fields", req(str("key")), scalar("value"))))),
		newType("kanban", "Columns of cards.",
			req(listOf("columns", req(str("label")),
				listOf("cards", req(str("title")), str("description"), str("badge"))))),
		newType("tree", "A tree of labelled nodes.",
			req(arrayOf("nodes", ref("", treeNode)))),
		newType("gauge", "A gauge: value out of max, with coloured thresholds.",
			req(number("value")), number("max"), str("unit"),
			listOf("thresholds", req(number("value")), str("color")),
		).with(checkGauge),
		newType("sparkline", "A small line of values.",
			req(numbers("values")), str("color"), size("height")),
		newType("funnel", "Steps with decreasing values.",
			req(listOf("steps", req(str("label")), req(number("value"))))),
		newType("gallery", "Images and other media.",
			req(listOf("items", req(imageURL("url")), imageURL("thumbnail_url"), str("caption"),
				str("mime_type"), integer("size_bytes", 0))),
			enum("layout", "grid", "list", "carousel"), integer("max_columns", 1)),
		newType("diff", "A text diff (old_text/new_text) or numeric changes (items).",
			str("old_text"), str("new_text"), str("language"), str("old_label"), str("new_label"),
			enum("view_mode", "split", "unified"),
			listOf("items", req(str("label")), req(number("old")), req(number("new")), str("unit")),
		).with(checkDiff, "old_text", "new_text", "items"),
		newType("form", "Input fields submitted with the page's form.",
			req(listOf("fields",
				req(str("field_id")), req(enum("type", formTypes...)), str("label"), boolean("required"),
				anyValue("default_value"), objectOf("validation", number("min"), number("max")),
				listOf("options", req(scalar("value")), str("label")),
				str("placeholder"), integer("max_length", 1))),
			str("submit_label"),
		).with(checkForm),
		newType("embed", "An embedded document, video, page or audio.",
			req(link("url")), enum("embed_type", "pdf", "video", "iframe", "audio"), size("width"), size("height")),
		newType("thread", "A conversation.",
			req(listOf("messages", str("author"), str("avatar"), str("time"), req(str("content"))))),
		newType("file", "Downloadable files.",
			req(listOf("files", req(str("name")), req(link("url")), str("mime_type"), integer("size_bytes", 0)))),
		newType("heatmap", "A rows x columns grid of values.",
			req(labels("rows")), req(labels("columns")), req(arrayOf("values", numbers(""))),
			enum("color_scale", "green_red", "blue_red", "gray_blue"), number("min"), number("max"),
		).with(checkHeatmap),
		newType("link", "Link previews (links), or one link given by url.",
			listOf("links", req(link("url")), str("title"), str("description"), imageURL("image"), imageURL("favicon")),
			link("url"), str("description"),
		).with(nil, "links", "url"),
		newType("rich_text", "Markdown text that can be collapsed.",
			req(str("content")), boolean("collapsible")),
		newType("evidence_gallery", "Evidence: images, documents and videos.",
			req(listOf("items", enum("type", "image", "document", "video"), req(link("url")),
				str("caption"), str("uploaded_by")))),
	}
}

// holdsBlocks reports whether o, at any depth, has a member holding nested blocks.
func holdsBlocks(o *object, seen map[*object]bool) bool {
	if seen[o] {
		return false
	}
	seen[o] = true
	for i := range o.fields {
		if fieldHoldsBlocks(&o.fields[i], seen) {
			return true
		}
	}
	return false
}

func fieldHoldsBlocks(f *field, seen map[*object]bool) bool {
	switch f.kind {
	case kBlocks:
		return true
	case kObject:
		return holdsBlocks(f.obj, seen)
	case kArray, kMap:
		return fieldHoldsBlocks(f.elem, seen)
	}
	return false
}
