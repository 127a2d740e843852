package render

import (
	"bytes"
	"html/template"
	"testing"
)

// BenchmarkPageAllBlocks renders the page of every block type from its stored
// blocks, as a first view does (nothing cached).
func BenchmarkPageAllBlocks(b *testing.B) {
	list := fixture(b)
	opt := testOptions()
	var buf bytes.Buffer
	Page(&buf, list, opt) // templates parsed, lexers indexed: the first view of a process pays these once
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		Page(&buf, list, opt)
	}
	b.ReportMetric(float64(buf.Len()), "html-bytes")
}

// mapCache is a render.Cache for tests.
type mapCache struct{ m map[string][]byte }

func (c *mapCache) Fragment(k string) ([]byte, bool) { b, ok := c.m[k]; return b, ok }
func (c *mapCache) Keep(k string, b []byte)          { c.m[k] = b }

// BenchmarkPageAllBlocksCached renders the same page again with its blocks in a
// cache, as every view after the first does (the countdown is drawn each time).
func BenchmarkPageAllBlocksCached(b *testing.B) {
	list := fixture(b)
	opt := testOptions()
	opt.Cache = &mapCache{m: map[string][]byte{}}
	var buf bytes.Buffer
	Page(&buf, list, opt)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		Page(&buf, list, opt)
	}
}

// BenchmarkTemplateActionFloor is the floor html/template sets: one escaped
// {{.}} action per item, 1,000 items. Its allocations per action are what every
// value a block template prints costs at least (the escaper is called through
// reflection), the bulk of a cold page render.
func BenchmarkTemplateActionFloor(b *testing.B) {
	items := make([]string, 1000)
	for i := range items {
		items[i] = "value"
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := floorTemplate.Execute(&buf, items); err != nil {
			b.Fatal(err)
		}
	}
}

var floorTemplate = template.Must(template.New("floor").Parse(`{{range .}}<li>{{.}}</li>{{end}}`))
