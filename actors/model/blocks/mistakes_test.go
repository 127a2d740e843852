package blocks

// mistake is one typical error in one block sent at blocks[0]: it must draw
// exactly one warning, at path, containing text.
type mistake struct {
	block string
	path  string
	text  string
	rule  bool // a cross-field rule: the JSON Schema cannot state it, so it accepts the block
}

var mistakes = map[string][]mistake{
	"layout": {
		{`{"type":"layout","data":{}}`, "blocks[0].data.columns", "missing; send an array of objects {width, blocks}", false},
		{`{"type":"layout","data":{"columns":{"blocks":[]}}}`, "blocks[0].data.columns", "expected an array, got an object", false},
		{`{"type":"layout","data":{"columns":[{"width":true}]}}`, "blocks[0].data.columns[0].width", "expected a size (string or number), got boolean true", false},
		{`{"type":"layout","data":{"columns":[{"blocks":[]},{"blocks":[{"type":"text","data":{"content":"a"}},{"type":"text","data":{}}]}]}}`,
			"blocks[0].data.columns[1].blocks[1].data.content", "missing", false},
	},
	"group": {
		{`{"type":"group","data":{"title":"x"}}`, "blocks[0].data.blocks", "missing; send an array of blocks", false},
		{`{"type":"group","data":{"collapsible":"yes","blocks":[]}}`, "blocks[0].data.collapsible", `expected a boolean, got string "yes"; send true or false`, false},
		{`{"type":"group","data":{"blocks":["text"]}}`, "blocks[0].data.blocks[0]", `expected a block object, got string "text"`, false},
		{`{"type":"group","data":{"blocks":[{"type":"divider","data":{"style":"wavy"}}]}}`, "blocks[0].data.blocks[0].data.style", `"wavy" is not an allowed value`, false},
	},
	"tab": {
		{`{"type":"tab","data":{"tabs":[{"blocks":[]}]}}`, "blocks[0].data.tabs[0].label", "missing; send a JSON string", false},
		{`{"type":"tab","data":{"tabs":[{"label":"a"},{"label":"b","blocks":[{"data":{}}]}]}}`, "blocks[0].data.tabs[1].blocks[0].type", "missing; send a block type name", false},
		{`{"type":"tab","data":{"tabs":"Summary"}}`, "blocks[0].data.tabs", `expected an array, got string "Summary"`, false},
	},
	"key_value": {
		{`{"type":"key_value","data":{"pairs":{"CPU":"80%"}}}`, "blocks[0].data.pairs", "expected an array, got an object; send an array of objects {key, value, style, badge}", false},
		{`{"type":"key_value","data":{"pairs":[{"key":"a","value":"b","badge":"danger"}]}}`, "blocks[0].data.pairs[0].badge", `"danger" is not an allowed value; send one of "info", "warning", "error", "success"`, false},
		{`{"type":"key_value","data":{"pairs":[{"label":"a","value":"b"}]}}`, "blocks[0].data.pairs[0].key", "missing", false},
		{`{"type":"key_value","data":{"layout":"table","pairs":[]}}`, "blocks[0].data.layout", `"table" is not an allowed value`, false},
	},
	"text": {
		{`{"type":"text","data":{"title":"x"}}`, "blocks[0].data.content", "missing; send a JSON string", false},
		{`{"type":"text","data":{"content":["p1","p2"]}}`, "blocks[0].data.content", "expected a string, got an array", false},
		{`{"type":"text","data":{"content":"x","title":7}}`, "blocks[0].data.title", "expected a string, got number 7", false},
	},
	"table": {
		{`{"type":"table","data":{"columns":[{"key":"host"},{"key":"cpu"}],"rows":[{"host":"a","cpu":1},{"host":"b","cpuu":2},{"host":"c","cpuu":3}]}}`,
			"blocks[0].data.rows[1].cpuu", `"cpuu" is not a column key (nor in 1 more rows); use one of "host", "cpu"`, true},
		{`{"type":"table","data":{"columns":[{"key":"host"},{"key":"cpu"}],"rows":[{"host":"a","cpu":1},{"host":"b","cpu":2},{"host":"c","cpu":"high"}]}}`,
			"blocks[0].data.rows[2].cpu", `expected a number, got string "high"; send a JSON number`, true},
		{`{"type":"table","data":{"columns":["host"],"rows":[]}}`, "blocks[0].data.columns[0]", `expected an object, got string "host"; send an object {key, label, width, align}`, false},
		{`{"type":"table","data":{"columns":[{"key":"a"},{"key":"b","align":"middle"}]}}`, "blocks[0].data.columns[1].align", `"middle" is not an allowed value`, false},
		{`{"type":"table","data":{"columns":[{"key":"a"}],"rows":[["x"]]}}`, "blocks[0].data.rows[0]", "expected an object, got an array; send an object keyed by column key", false},
		{`{"type":"table","data":{"columns":[{"key":"a"}],"rows":[{"a":{"nested":1}}]}}`, "blocks[0].data.rows[0].a", "expected a string, number or boolean, got an object", false},
		{`{"type":"table","data":{"columns":[{"key":"a"},{"key":"a"}]}}`, "blocks[0].data.columns[1].key", `duplicate column key "a"`, true},
		{`{"type":"table","data":{"rows":[{"a":1}]}}`, "blocks[0].data.columns", "missing", false},
		{`{"type":"table","data":{"columns":[{"key":"cpu %"}],"rows":[{"cpu %":1},{"cpu %":2},{"cpu %":"x"}]}}`, `blocks[0].data.rows[2]["cpu %"]`, "expected a number", true},
	},
	"callout": {
		{`{"type":"callout","data":{"content":"x","style":"danger"}}`, "blocks[0].data.style", `"danger" is not an allowed value`, false},
		{`{"type":"callout","data":{"style":"info"}}`, "blocks[0].data.content", "missing; send a JSON string", false},
		{`{"type":"callout","data":{"message":42}}`, "blocks[0].data.message", "expected a string, got number 42", false},
		{`{"type":"callout","data":{"content":"a","message":"b"}}`, "blocks[0].data.message", "ignored because content is also set", true},
		{`{"type":"callout","data":{"content":"a","style":"Warning"}}`, "blocks[0].data.style", `(did you mean "warning"?)`, false},
	},
	"code": {
		{`{"type":"code","data":{"language":"go"}}`, "blocks[0].data.content", "missing", false},
		{`{"type":"code","data":{"content":"a\nb","highlight_lines":["2"]}}`, "blocks[0].data.highlight_lines[0]", `expected a whole number >= 1, got string "2"`, false},
		{`{"type":"code","data":{"content":"a\nb\n","highlight_lines":[1,9]}}`, "blocks[0].data.highlight_lines[1]", "line 9 is past the end of content (2 lines)", true},
		{`{"type":"code","data":{"content":"a","line_numbers":1}}`, "blocks[0].data.line_numbers", "expected a boolean", false},
	},
	"divider": {
		{`{"type":"divider","data":{"style":"double"}}`, "blocks[0].data.style", `"double" is not an allowed value; send one of "solid", "dashed", "dotted"`, false},
		{`{"type":"divider","data":{"spacing":"10px"}}`, "blocks[0].data.spacing", `"10px" is not an allowed value`, false},
		{`{"type":"divider","data":[]}`, "blocks[0].data", "expected an object, got an array", false},
	},
	"metric": {
		{`{"type":"metric","data":{"value":"1","trend":"neutral"}}`, "blocks[0].data.trend", `"neutral" is not an allowed value; send one of "up", "down", "flat"`, false},
		{`{"type":"metric","data":{"title":"Users"}}`, "blocks[0].data.value", "missing; send a string, number or boolean, or send items", false},
		{`{"type":"metric","data":{"items":[{"label":"a","value":1,"sparkline":[1,"x"]}]}}`, "blocks[0].data.items[0].sparkline[1]", `expected a number, got string "x"`, false},
		{`{"type":"metric","data":{"items":[{"label":"a"}]}}`, "blocks[0].data.items[0].value", "missing", false},
		{`{"type":"metric","data":{"value":{"n":1}}}`, "blocks[0].data.value", "expected a string, number or boolean, got an object", false},
		{`{"type":"metric","data":{"value":"1","trend":"up","good":"higher"}}`, "blocks[0].data.good", `"higher" is not an allowed value; send one of "up", "down"`, false},
		{`{"type":"metric","data":{"items":[{"label":"a","value":1,"good":"less"}]}}`, "blocks[0].data.items[0].good", `send one of "up", "down"`, false},
	},
	"chart": {
		{`{"type":"chart","data":{"chart_type":"donut","data":{"labels":["a"],"datasets":[{"data":[1]}]}}}`, "blocks[0].data.chart_type", `"donut" is not an allowed value`, false},
		{`{"type":"chart","data":{"chart_type":"line","data":{"labels":["a","b","c","d"],"datasets":[{"data":[1,2,3]}]}}}`, "blocks[0].data.data.datasets[0].data", "has 3 values but there are 4 labels", true},
		{`{"type":"chart","data":{"chart_type":"bar","labels":["a"],"datasets":[{"data":[1]}]}}`, "blocks[0].data.data", "missing; send an object {labels, datasets} (labels and datasets go inside data.data)", false},
		{`{"type":"chart","data":{"chart_type":"bar","data":{"labels":["a","b"],"datasets":[{"data":[1,"5"]}]}}}`, "blocks[0].data.data.datasets[0].data[1]", `expected a number, got string "5"`, false},
		{`{"type":"chart","data":{"chart_type":"pie","data":{"labels":["a"],"datasets":[{"data":[1]}]},"annotations":[{"x":"a","label":"l"}]}}`, "blocks[0].data.annotations", "drawn only on bar, line and area charts", true},
		{`{"type":"chart","data":{"chart_type":"bar","data":{"datasets":[{"data":[1]}]}}}`, "blocks[0].data.data.labels", "missing; send one label per value", true},
		{`{"type":"chart","data":{"type":"bar","data":{"labels":["a"],"datasets":[{"data":[1]}]}}}`, "blocks[0].data.chart_type", "the chart kind goes in chart_type", false},
		{`{"type":"chart","data":{"chart_type":"line","data":{"labels":["a"],"datasets":[{"data":[{"x":1,"y":2}]}]}}}`, "blocks[0].data.data.datasets[0].data[0]", "x/y points are drawn only by scatter charts", true},
	},
	"timeline": {
		{`{"type":"timeline","data":{"events":[{"time":"yesterday","event":"a"}]}}`, "blocks[0].data.events[0].time", `"yesterday" is not an ISO 8601 timestamp; send a timestamp such as "2024-05-01T14:30:00Z"`, false},
		{`{"type":"timeline","data":{"events":[{"time":1714573800,"event":"a"}]}}`, "blocks[0].data.events[0].time", "expected an ISO 8601 timestamp string, got number 1714573800", false},
		{`{"type":"timeline","data":{"events":[{"event":"a"},{"event":"b","status":"done"}]}}`, "blocks[0].data.events[1].status", `"done" is not an allowed value; send one of "completed", "current", "pending"`, false},
		{`{"type":"timeline","data":{"events":[{"time":"2024-05-01 14:30:00","event":"a"}]}}`, "blocks[0].data.events[0].time", "put T between date and time", false},
		{`{"type":"timeline","data":{"events":[{"time":"2024-02-30","event":"a"}]}}`, "blocks[0].data.events[0].time", "is not a calendar date", true},
		{`{"type":"timeline","data":{"events":[{"time":"2024-05-01"}]}}`, "blocks[0].data.events[0].event", "missing", false},
	},
	"buttons": {
		{`{"type":"buttons","data":{"items":[{"label":"x","url":"javascript:alert(1)"}]}}`, "blocks[0].data.items[0].url", `scheme "javascript:" is not allowed; send an http(s) or relative URL`, false},
		{`{"type":"buttons","data":{"items":[{"label":"x","action_id":"a","style":"success"}]}}`, "blocks[0].data.items[0].style", `"success" is not an allowed value`, false},
		{`{"type":"buttons","data":{"items":[{"label":"x","url":"/a"},{"label":"y"}]}}`, "blocks[0].data.items[1]", "has neither url nor action_id", true},
		{`{"type":"buttons","data":{"items":[{"url":"/a"}]}}`, "blocks[0].data.items[0].label", "missing", false},
	},
	"logs": {
		{`{"type":"logs","data":{"lines":[{"level":"warning","message":"m"}]}}`, "blocks[0].data.lines[0].level", `(did you mean "warn"?)`, false},
		{`{"type":"logs","data":{"lines":["started"]}}`, "blocks[0].data.lines[0]", `expected an object, got string "started"; send an object {time, level, message}`, false},
		{`{"type":"logs","data":{"lines":[{"level":"info"}]}}`, "blocks[0].data.lines[0].message", "missing", false},
		{`{"type":"logs","data":{"lines":[],"auto_scroll":"on"}}`, "blocks[0].data.auto_scroll", "expected a boolean", false},
	},
	"progress": {
		{`{"type":"progress","data":{"value":"50%"}}`, "blocks[0].data.value", `expected a number, got string "50%"; send a JSON number`, false},
		{`{"type":"progress","data":{"value":150,"max":100}}`, "blocks[0].data.value", "150 is greater than max 100", true},
		{`{"type":"progress","data":{"value":0,"max":0}}`, "blocks[0].data.max", "must be greater than 0", true},
		{`{"type":"progress","data":{"value":-5}}`, "blocks[0].data.value", "-5 is negative", true},
		{`{"type":"progress","data":{"max":10}}`, "blocks[0].data.value", "missing", false},
	},
	"stepper": {
		{`{"type":"stepper","data":{"current":3,"steps":[{"label":"a"},{"label":"b"},{"label":"c"}]}}`, "blocks[0].data.current", "3 is past the last step; send a 0-based index from 0 to 2", true},
		{`{"type":"stepper","data":{"current":-1,"steps":[{"label":"a"}]}}`, "blocks[0].data.current", "expected a whole number >= 0, got number -1", false},
		{`{"type":"stepper","data":{"steps":["a","b"]}}`, "blocks[0].data.steps[0]", "expected an object, got string \"a\"", false},
		{`{"type":"stepper","data":{"current":1.5,"steps":[{"label":"a"},{"label":"b"}]}}`, "blocks[0].data.current", "expected a whole number >= 0", false},
	},
	"image": {
		{`{"type":"image","data":{"alt":"x"}}`, "blocks[0].data.url", "missing; send an http(s) or relative URL", false},
		{`{"type":"image","data":{"url":"javascript:alert(1)"}}`, "blocks[0].data.url", `scheme "javascript:" is not allowed`, false},
		{`{"type":"image","data":{"url":"java\tscript:alert(1)"}}`, "blocks[0].data.url", `scheme "javascript:" is not allowed`, true},
		{`{"type":"image","data":{"url":"ftp://example.com/a.png"}}`, "blocks[0].data.url", `scheme "ftp:" is not allowed`, false},
		{`{"type":"image","data":{"url":""}}`, "blocks[0].data.url", "is empty", false},
		{`{"type":"image","data":{"url":"data:image/png;base64,iVBORw0KGgo="}}`, "blocks[0].data.url", "inline data: images are not shown; upload the image (POST /v1/pages/{pageId}/files) or host it", false},
	},
	"countdown": {
		{`{"type":"countdown","data":{"title":"x"}}`, "blocks[0].data.target", "missing; send an ISO 8601 timestamp", false},
		{`{"type":"countdown","data":{"target":"tomorrow"}}`, "blocks[0].data.target", `"tomorrow" is not an ISO 8601 timestamp`, false},
		{`{"type":"countdown","data":{"target":"2030-01-01","style":"error"}}`, "blocks[0].data.style", `"error" is not an allowed value; send one of "info", "warning", "danger"`, false},
	},
	"comparison": {
		{`{"type":"comparison","data":{"items":[{"label":"a","fields":{"price":"1"}}]}}`, "blocks[0].data.items[0].fields", "expected an array, got an object; send an array of objects {key, value}", false},
		{`{"type":"comparison","data":{"items":[{"label":"a","highlight":"yes"}]}}`, "blocks[0].data.items[0].highlight", "expected a boolean", false},
		{`{"type":"comparison","data":{"items":[{"fields":[]}]}}`, "blocks[0].data.items[0].label", "missing", false},
	},
	"kanban": {
		{`{"type":"kanban","data":{"columns":[{"label":"a","cards":[{"description":"d"}]}]}}`, "blocks[0].data.columns[0].cards[0].title", "missing", false},
		{`{"type":"kanban","data":{"columns":[{"label":"a","cards":{"title":"t"}}]}}`, "blocks[0].data.columns[0].cards", "expected an array, got an object", false},
		{`{"type":"kanban","data":{"cards":[]}}`, "blocks[0].data.columns", "missing", false},
	},
	"tree": {
		{`{"type":"tree","data":{"nodes":[{"label":"a","children":[{"label":"b"},{"icon":"x"}]}]}}`, "blocks[0].data.nodes[0].children[1].label", "missing", false},
		{`{"type":"tree","data":{"nodes":[{"label":"a","children":"b"}]}}`, "blocks[0].data.nodes[0].children", `expected an array, got string "b"; send an array of objects {label, children, icon}`, false},
		{`{"type":"tree","data":{"nodes":{"label":"a"}}}`, "blocks[0].data.nodes", "expected an array", false},
	},
	"gauge": {
		{`{"type":"gauge","data":{"value":"72"}}`, "blocks[0].data.value", `expected a number, got string "72"`, false},
		{`{"type":"gauge","data":{"value":120,"max":100}}`, "blocks[0].data.value", "120 is greater than max 100", true},
		{`{"type":"gauge","data":{"value":1,"thresholds":[{"color":"red"}]}}`, "blocks[0].data.thresholds[0].value", "missing", false},
	},
	"sparkline": {
		{`{"type":"sparkline","data":{"values":[1,"2",3]}}`, "blocks[0].data.values[1]", `expected a number, got string "2"; send a JSON number`, false},
		{`{"type":"sparkline","data":{"data":[1,2]}}`, "blocks[0].data.values", "missing; send an array of numbers (null for a gap)", false},
		{`{"type":"sparkline","data":{"values":[1,2],"height":[]}}`, "blocks[0].data.height", "expected a size", false},
	},
	"funnel": {
		{`{"type":"funnel","data":{"steps":[{"label":"a","value":1},{"label":"b","value":"10%"}]}}`, "blocks[0].data.steps[1].value", `expected a number, got string "10%"`, false},
		{`{"type":"funnel","data":{"steps":[{"value":1}]}}`, "blocks[0].data.steps[0].label", "missing", false},
		{`{"type":"funnel","data":{}}`, "blocks[0].data.steps", "missing", false},
	},
	"gallery": {
		{`{"type":"gallery","data":{"items":[{"caption":"c"}]}}`, "blocks[0].data.items[0].url", "missing", false},
		{`{"type":"gallery","data":{"items":[{"url":"/a","thumbnail_url":"data:image/gif;base64,R0lG"}]}}`, "blocks[0].data.items[0].thumbnail_url", "inline data: images are not shown", false},
		{`{"type":"gallery","data":{"items":[],"layout":"masonry"}}`, "blocks[0].data.layout", `"masonry" is not an allowed value; send one of "grid", "list", "carousel"`, false},
		{`{"type":"gallery","data":{"items":[{"url":"/a","size_bytes":-5}]}}`, "blocks[0].data.items[0].size_bytes", "expected a whole number >= 0, got number -5", false},
		{`{"type":"gallery","data":{"items":[{"url":"/a","thumbnail_url":"vbscript:x"}]}}`, "blocks[0].data.items[0].thumbnail_url", `scheme "vbscript:" is not allowed`, false},
	},
	"diff": {
		{`{"type":"diff","data":{"items":[{"label":"cost","old":"12%","new":10}]}}`, "blocks[0].data.items[0].old", `expected a number, got string "12%"`, false},
		{`{"type":"diff","data":{"old_text":"a"}}`, "blocks[0].data.new_text", "missing; send both old_text and new_text", true},
		{`{"type":"diff","data":{"title":"x"}}`, "blocks[0].data.old_text", "missing; send a JSON string, or send new_text or items", false},
		{`{"type":"diff","data":{"old_text":"a","new_text":"b","view_mode":"side-by-side"}}`, "blocks[0].data.view_mode", `"side-by-side" is not an allowed value`, false},
		{`{"type":"diff","data":{"items":[{"label":"cost","old":1}]}}`, "blocks[0].data.items[0].new", "missing", false},
	},
	"form": {
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"dropdown"}]}}`, "blocks[0].data.fields[0].type", `"dropdown" is not an allowed value; send one of "text", "textarea"`, false},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"select"}]}}`, "blocks[0].data.fields[0].options", "missing; a select field needs options [{value, label}]", true},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"text"},{"field_id":"a","type":"email"}]}}`, "blocks[0].data.fields[1].field_id", `duplicate field_id "a" (already used by blocks[0].data.fields[0])`, true},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"number","validation":{"min":10,"max":1}}]}}`, "blocks[0].data.fields[0].validation", "min 10 is greater than max 1", true},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"text","max_length":0}]}}`, "blocks[0].data.fields[0].max_length", "expected a whole number >= 1, got number 0", false},
		{`{"type":"form","data":{"fields":[{"type":"text","label":"Name"}]}}`, "blocks[0].data.fields[0].field_id", "missing", false},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"number","validation":{"min":"1"}}]}}`, "blocks[0].data.fields[0].validation.min", `expected a number, got string "1"`, false},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"radio","options":["x","y"]}]}}`, "blocks[0].data.fields[0].options[0]", `expected an object, got string "x"; send an object {value, label}`, false},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"number","default_value":"abc"}]}}`, "blocks[0].data.fields[0].default_value", `expected a number, got string "abc"`, true},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"select","options":[{"value":"s"}],"default_value":"m"}]}}`, "blocks[0].data.fields[0].default_value", `string "m" is not one of the option values; send one of "s"`, true},
		{`{"type":"form","data":{"fields":[{"field_id":"a"}]}}`, "blocks[0].data.fields[0].type", "missing; send one of", false},
		{`{"type":"form","data":{"fields":[{"field_id":"a","type":"date-time"}]}}`, "blocks[0].data.fields[0].type", `(did you mean "datetime"?)`, false},
	},
	"embed": {
		{`{"type":"embed","data":{"url":"https://x.y/v","embed_type":"youtube"}}`, "blocks[0].data.embed_type", `"youtube" is not an allowed value; send one of "pdf", "video", "iframe", "audio"`, false},
		{`{"type":"embed","data":{"embed_type":"pdf"}}`, "blocks[0].data.url", "missing", false},
		{`{"type":"embed","data":{"url":"file:///etc/passwd"}}`, "blocks[0].data.url", `scheme "file:" is not allowed`, false},
	},
	"thread": {
		{`{"type":"thread","data":{"messages":[{"author":"a"}]}}`, "blocks[0].data.messages[0].content", "missing", false},
		{`{"type":"thread","data":{"messages":{"author":"a","content":"c"}}}`, "blocks[0].data.messages", "expected an array, got an object", false},
		{`{"type":"thread","data":{"messages":[{"content":"c","author":{"name":"a"}}]}}`, "blocks[0].data.messages[0].author", "expected a string, got an object", false},
	},
	"file": {
		{`{"type":"file","data":{"files":[{"name":"a.txt"}]}}`, "blocks[0].data.files[0].url", "missing", false},
		{`{"type":"file","data":{"files":[{"name":"a.txt","url":"/a","size_bytes":"12KB"}]}}`, "blocks[0].data.files[0].size_bytes", `expected a whole number >= 0, got string "12KB"`, false},
		{`{"type":"file","data":{"files":[{"url":"/a"}]}}`, "blocks[0].data.files[0].name", "missing", false},
	},
	"heatmap": {
		{`{"type":"heatmap","data":{"rows":["a","b","c"],"columns":["x"],"values":[[1],[2]]}}`, "blocks[0].data.values", "has 2 rows but rows names 3", true},
		{`{"type":"heatmap","data":{"rows":["a","b"],"columns":["x","y"],"values":[[1,2],[3,4,5]]}}`, "blocks[0].data.values[1]", "has 3 values but columns names 2; send one value per column", true},
		{`{"type":"heatmap","data":{"rows":["a"],"columns":["x","y"],"values":[[1,"x"]]}}`, "blocks[0].data.values[0][1]", `expected a number, got string "x"`, false},
		{`{"type":"heatmap","data":{"rows":["a"],"columns":["x"],"values":[[1]],"color_scale":"rainbow"}}`, "blocks[0].data.color_scale", `"rainbow" is not an allowed value`, false},
		{`{"type":"heatmap","data":{"rows":["a"],"columns":["x"],"values":[[1]],"min":5,"max":1}}`, "blocks[0].data.min", "5 is greater than max 1", true},
		{`{"type":"heatmap","data":{"rows":["a"],"columns":["x"],"values":[1]}}`, "blocks[0].data.values[0]", "expected an array, got number 1", false},
	},
	"link": {
		{`{"type":"link","data":{"links":[{"title":"t"}]}}`, "blocks[0].data.links[0].url", "missing", false},
		{`{"type":"link","data":{"title":"t"}}`, "blocks[0].data.links", "missing; send an array of objects {url, title, description, image, favicon}, or send url", false},
		{`{"type":"link","data":{"links":[{"url":" JavaScript:alert(1)"}]}}`, "blocks[0].data.links[0].url", `scheme "javascript:" is not allowed`, true},
		{`{"type":"link","data":{"url":"data:text/html,x"}}`, "blocks[0].data.url", `scheme "data:" is not allowed`, false},
	},
	"rich_text": {
		{`{"type":"rich_text","data":{"title":"t"}}`, "blocks[0].data.content", "missing", false},
		{`{"type":"rich_text","data":{"content":"c","collapsible":"false"}}`, "blocks[0].data.collapsible", `expected a boolean, got string "false"`, false},
		{`{"type":"rich_text","data":{"content":null}}`, "blocks[0].data.content", "is null; send a JSON string", false},
	},
	"evidence_gallery": {
		{`{"type":"evidence_gallery","data":{"items":[{"type":"pdf","url":"/a.pdf"}]}}`, "blocks[0].data.items[0].type", `"pdf" is not an allowed value; send one of "image", "document", "video"`, false},
		{`{"type":"evidence_gallery","data":{"items":[{"type":"image"}]}}`, "blocks[0].data.items[0].url", "missing", false},
		{`{"type":"evidence_gallery","data":{"items":"a.png"}}`, "blocks[0].data.items", "expected an array", false},
	},
}
