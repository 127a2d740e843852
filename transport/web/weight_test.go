package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"sort"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// transferred fetches path as a browser does (gzip accepted) and returns the bytes
// on the wire and the body.
func transferred(t testing.TB, url string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	wire, _ := io.ReadAll(res.Body)
	body := wire
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytesReader(wire))
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(zr)
	}
	return len(wire), body
}

// TestTheAllBlocksPageWeighsUnder60KB: HTML, CSS and JS of the page of every block
// type, gzipped as they travel, stay within 60 KB.
func TestTheAllBlocksPageWeighsUnder60KB(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("weight")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": allBlocks(t)}))
	htmlWire, html := transferred(t, e.Srv.URL+"/p/"+id)
	total := htmlWire
	for _, m := range regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllSubmatch(html, -1) {
		n, _ := transferred(t, e.Srv.URL+string(m[1]))
		t.Logf("%s: %d bytes gzipped", m[1], n)
		total += n
	}
	t.Logf("HTML: %d bytes gzipped (%d raw); page in all: %d bytes", htmlWire, len(html), total)
	if total > 60_000 {
		t.Fatalf("the all-blocks page transfers %d bytes, over 60 KB", total)
	}
}

// BenchmarkFirstContentfulPaint opens the all-blocks page in Chromium and reports
// the time to first contentful paint: cold (a new browser context, nothing cached)
// and warm (the same context again: hashed assets come from the cache).
func BenchmarkFirstContentfulPaint(b *testing.B) {
	e := nodetest.New(b)
	key, _ := e.Register("fcp")
	id := publish(b, e, key, approvalPage(map[string]any{"blocks": allBlocks(b)}))
	url := e.Srv.URL + "/p/" + id
	fcp := func(tb *tab) float64 {
		tb.do(chromedp.Navigate(url))
		tb.until("the paint", `performance.getEntriesByName("first-contentful-paint").length > 0`)
		return eval[float64](tb, `performance.getEntriesByName("first-contentful-paint")[0].startTime`)
	}
	var cold, warm []float64
	for b.Loop() {
		tb := newTab(b)
		cold = append(cold, fcp(tb))
		warm = append(warm, fcp(tb))
	}
	b.ReportMetric(median(cold), "cold-fcp-ms")
	b.ReportMetric(median(warm), "warm-fcp-ms")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
