package blocks

// wellFormed holds, for every catalog type, a block that uses the spec's
// fields richly and must draw no warning (and must validate against Schema).
var wellFormed = map[string]string{
	"layout": `{"type":"layout","data":{"columns":[
		{"width":"1/2","blocks":[{"type":"text","data":{"content":"Left"}}]},
		{"width":"50%","blocks":[{"type":"metric","data":{"title":"Uptime","value":"99.9%"}}]}]}}`,
	"group": `{"type":"group","data":{"title":"Details","collapsible":true,"default_collapsed":false,
		"blocks":[{"type":"text","data":{"content":"Inside"}},{"type":"divider","data":{}}]}}`,
	"tab": `{"type":"tab","data":{"tabs":[
		{"label":"Summary","blocks":[{"type":"text","data":{"content":"**Bold**"}}]},
		{"label":"Raw","blocks":[{"type":"code","data":{"content":"{}","language":"json"}}]}]}}`,
	"key_value": `{"type":"key_value","data":{"title":"Build","layout":"grid","pairs":[
		{"key":"Branch","value":"main","style":"highlight","badge":"info"},
		{"key":"Tests","value":412,"style":"normal","badge":"success"},
		{"key":"Flaky","value":true,"style":"muted"}]}}`,
	"text": `{"type":"text","data":{"title":"Intro","content":"# Hello\nSome *Markdown*."}}`,
	"table": `{"type":"table","data":{"title":"Hosts","sortable":true,"max_rows":50,"footer":"3 hosts",
		"columns":[{"key":"host","label":"Host","width":"40%","align":"left"},
			{"key":"cpu","label":"CPU %","align":"right"},{"key":"note","label":"Note","align":"center"}],
		"rows":[{"host":"a","cpu":12.5,"note":"ok"},{"host":"b","cpu":80,"note":null},{"host":"c","cpu":3}]}}`,
	"callout": `{"type":"callout","data":{"title":"Heads up","content":"Deploy at **5pm**","style":"warning","icon":"⚠️","collapsible":false}}`,
	"code": `{"type":"code","data":{"title":"main.py","content":"print(1)\nprint(2)\nprint(3)\n","language":"python",
		"line_numbers":true,"highlight_lines":[1,3],"max_height":"300px"}}`,
	"divider": `{"type":"divider","data":{"style":"dashed","spacing":"large"}}`,
	"metric": `{"type":"metric","data":{"title":"Revenue","value":"$1.2M","change":"+4%","trend":"up",
		"description":"Month to date","icon":"💰"}}`,
	"chart": `{"type":"chart","data":{"title":"Sales","chart_type":"bar",
		"data":{"labels":["Q1","Q2","Q3"],"datasets":[{"label":"2024","data":[1,2.5,null],"color":"#36a"},
			{"label":"2025","data":[2,3,4]}]},
		"options":{"y_axis_label":"EUR","show_legend":true},
		"annotations":[{"x":"Q2","label":"Launch","color":"red"}]}}`,
	"timeline": `{"type":"timeline","data":{"title":"Incident","events":[
		{"time":"2024-05-01T14:30:00Z","event":"Alert","detail":"p99 up","status":"completed","icon":"🔔"},
		{"time":"2024-05-01T14:35:12.5+02:00","event":"Mitigation","status":"current"},
		{"time":"2024-05-02","event":"Review","status":"pending"}]}}`,
	"buttons": `{"type":"buttons","data":{"title":"Next","layout":"horizontal","items":[
		{"label":"Docs","url":"https://example.com/docs","style":"secondary"},
		{"label":"Approve","action_id":"approve","style":"primary"},
		{"label":"Local","url":"/v1/pages/p_1","style":"danger"}]}}`,
	"logs": `{"type":"logs","data":{"title":"Build log","max_height":"200px","auto_scroll":true,"lines":[
		{"time":"12:00:01","level":"info","message":"start"},{"time":"12:00:02","level":"warn","message":"slow"},
		{"level":"error","message":"boom"},{"level":"debug","message":"trace"}]}}`,
	"progress": `{"type":"progress","data":{"title":"Upload","value":40,"max":120,"label":"40 of 120","color":"green","show_percentage":true}}`,
	"stepper": `{"type":"stepper","data":{"title":"Release","current":1,"steps":[
		{"label":"Build","description":"compile"},{"label":"Test"},{"label":"Ship"}]}}`,
	"image":     `{"type":"image","data":{"title":"Diagram","url":"https://example.com/a.png","alt":"arch","width":640,"caption":"Overview"}}`,
	"countdown": `{"type":"countdown","data":{"title":"Launch","target":"2030-01-01T00:00:00Z","expired_message":"Launched","style":"danger"}}`,
	"comparison": `{"type":"comparison","data":{"title":"Plans","items":[
		{"label":"Pro","highlight":true,"fields":[{"key":"Price","value":"$10"},{"key":"Seats","value":5}]},
		{"label":"Free","highlight":false,"fields":[{"key":"Price","value":0}]}]}}`,
	"kanban": `{"type":"kanban","data":{"title":"Board","columns":[
		{"label":"Todo","cards":[{"title":"Write spec","description":"by Friday","badge":"P1"}]},
		{"label":"Done","cards":[]}]}}`,
	"tree": `{"type":"tree","data":{"title":"Files","nodes":[
		{"label":"src","icon":"📁","children":[{"label":"main.go"},{"label":"lib","children":[{"label":"a.go","icon":"📄"}]}]},
		{"label":"README.md"}]}}`,
	"gauge": `{"type":"gauge","data":{"title":"CPU","value":72,"max":100,"unit":"%",
		"thresholds":[{"value":60,"color":"yellow"},{"value":90,"color":"red"}]}}`,
	"sparkline": `{"type":"sparkline","data":{"title":"Latency","values":[3,4.5,null,2],"color":"#f00","height":40}}`,
	"funnel":    `{"type":"funnel","data":{"title":"Signup","steps":[{"label":"Visit","value":1000},{"label":"Sign up","value":120}]}}`,
	"gallery": `{"type":"gallery","data":{"title":"Shots","layout":"carousel","max_columns":3,"items":[
		{"url":"https://example.com/1.png","thumbnail_url":"https://example.com/1_t.png","caption":"One","mime_type":"image/png","size_bytes":2048},
		{"url":"img/2.jpg","caption":"Two"}]}}`,
	"diff": `{"type":"diff","data":{"title":"Config","old_text":"a=1\n","new_text":"a=2\n","language":"ini",
		"old_label":"before","new_label":"after","view_mode":"split"}}`,
	"form": `{"type":"form","data":{"title":"Request","submit_label":"Send","fields":[
		{"field_id":"name","type":"text","label":"Name","required":true,"placeholder":"Ada","max_length":80},
		{"field_id":"bio","type":"textarea","label":"Bio"},
		{"field_id":"qty","type":"number","label":"Quantity","default_value":2,"validation":{"min":1,"max":10}},
		{"field_id":"size","type":"select","options":[{"value":"s","label":"Small"},{"value":"l","label":"Large"}],"default_value":"s"},
		{"field_id":"tags","type":"multi_select","options":[{"value":"a","label":"A"},{"value":"b"}]},
		{"field_id":"ok","type":"checkbox","label":"I agree","default_value":false},
		{"field_id":"tier","type":"radio","options":[{"value":1,"label":"One"},{"value":2,"label":"Two"}],"default_value":1},
		{"field_id":"day","type":"date"},{"field_id":"at","type":"datetime"},{"field_id":"cv","type":"file"},
		{"field_id":"mail","type":"email"},{"field_id":"site","type":"url"}]}}`,
	"embed": `{"type":"embed","data":{"title":"Spec","url":"https://example.com/spec.pdf","embed_type":"pdf","width":"100%","height":600}}`,
	"thread": `{"type":"thread","data":{"title":"Review","messages":[
		{"author":"Ada","avatar":"AL","time":"2024-05-01T10:00:00Z","content":"Looks **good**"},
		{"author":"Bot","avatar":"https://example.com/bot.png","time":"10:05","content":"Thanks"}]}}`,
	"file": `{"type":"file","data":{"title":"Artifacts","files":[
		{"name":"report.pdf","url":"https://example.com/report.pdf","mime_type":"application/pdf","size_bytes":12345},
		{"name":"log.txt","url":"/v1/pages/p_1/files/f_1"}]}}`,
	"heatmap": `{"type":"heatmap","data":{"title":"Load","rows":["mon","tue"],"columns":["00","06","12"],
		"values":[[1,2,3],[4,null,6]],"color_scale":"blue_red","min":0,"max":10}}`,
	"link": `{"type":"link","data":{"title":"Related","links":[
		{"url":"https://example.com","title":"Example","description":"A site","image":"https://example.com/og.png","favicon":"/favicon.ico"},
		{"url":"https://example.org"}]}}`,
	"rich_text": `{"type":"rich_text","data":{"title":"Notes","content":"## Heading\n**bold** _it_ ` + "`code`" + ` [link](https://x.y)","collapsible":true}}`,
	"evidence_gallery": `{"type":"evidence_gallery","data":{"title":"Evidence","items":[
		{"type":"image","url":"https://example.com/shot.png","caption":"Screen","uploaded_by":"agent:bot"},
		{"type":"document","url":"/files/report.pdf"},{"type":"video","url":"https://example.com/v.mp4"}]}}`,
}

// alsoWellFormed are further well-formed blocks: the other forms of types
// that have two, and edge cases that must stay silent.
var alsoWellFormed = []string{
	`{"type":"metric","data":{"title":"KPIs","items":[
		{"label":"Users","value":1200,"trend":"up","trend_value":"+5%","sparkline":[1,2,3]},
		{"label":"Churn","value":"2%","trend":"flat"}]}}`,
	`{"type":"chart","data":{"chart_type":"scatter","data":{"datasets":[{"label":"pts","data":[{"x":1,"y":2},[3,4],5]}]}}}`,
	`{"type":"chart","data":{"chart_type":"pie","data":{"labels":["a","b"],"datasets":[{"data":[1,2],"color":["red","blue"]}]}}}`,
	`{"type":"diff","data":{"title":"Costs","old_label":"May","new_label":"June","items":[
		{"label":"Compute","old":120,"new":95.5,"unit":"EUR"},{"label":"Storage","old":10,"new":12}]}}`,
	`{"type":"link","data":{"url":"https://example.com","title":"One link","description":"single form"}}`,
	`{"type":"callout","data":{"content":"plain","style":"info","icon":null}}`,
	`{"type":"divider"}`,
	`{"type":"divider","data":{}}`,
	`{"type":"some_future_type","data":{"anything":[1,2,{"x":"y"}]}}`,
	`{"type":"some_future_type","data":"not an object"}`,
	`{"type":"text","id":"b_0_abcdefgh","group":"g","tab":"t","data":{"content":"x","unknown_field":{"deep":[1]}}}`,
	`{"type":"progress","data":{"value":0,"max":1}}`,
	`{"type":"progress","data":{"value":1e400,"max":1e401}}`,
	`{"type":"stepper","data":{"current":2,"steps":[{"label":"a"},{"label":"b"},{"label":"c"}]}}`,
	`{"type":"timeline","data":{"events":[{"time":"2024-05-01T14:30","event":"a"},{"time":"2024-02-29T23:59:60Z","event":"b"}]}}`,
	`{"type":"table","data":{"columns":[{"key":"v"}],"rows":[{"v":"N/A"},{"v":"3"},{"v":1}]}}`,
	`{"type":"code","data":{"content":"one line","highlight_lines":[1]}}`,
	`{"type":"heatmap","data":{"rows":[],"columns":["a"],"values":[]}}`,
	`{"type":"image","data":{"url":"//cdn.example.com/a.png"}}`,
	`{"type":"image","data":{"url":"images/a:b.png"}}`,
	`{"type":"buttons","data":{"items":[{"label":"x","url":"HTTPS://EXAMPLE.COM"}]}}`,
}
