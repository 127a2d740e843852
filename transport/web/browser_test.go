package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// These tests drive a real headless Chromium (Debian's chromium; make deps installs
// it) against a real server: what they assert is what a person sees. One browser
// serves the whole package; every test gets a browser context of its own (its own
// storage), and waits for conditions rather than sleeping.

var browser context.Context

func TestMain(m *testing.M) {
	path := chromiumPath()
	if path == "" {
		fmt.Fprintln(os.Stderr, "the browser tests need Chromium: apt-get install chromium (make deps does)")
		os.Exit(1)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Headless,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.WindowSize(1000, 800))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b, cancelBrowser := chromedp.NewContext(alloc)
	if err := chromedp.Do(b); err != nil {
		fmt.Fprintln(os.Stderr, "start Chromium:", err)
		os.Exit(1)
	}
	browser = b
	code := m.Run()
	cancelBrowser()
	cancelAlloc()
	os.Exit(code)
}

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab is a fresh browser context for one test. JavaScript errors on the page fail
// the test (they would break the page for a person too); CSP violations are
// collected for tests that look at them.
type tab struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	errors   []string
	console  []string
	requests []string
}

func newTab(t testing.TB, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, append([]chromedp.ContextOption{chromedp.WithNewBrowserContext()}, opts...)...)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	tb := &tab{t: t, ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			tb.errors = append(tb.errors, msg)
		case *log.EventEntryAdded:
			tb.console = append(tb.console, string(e.Entry.Source)+": "+e.Entry.Text)
		case *network.EventRequestWillBeSent:
			tb.requests = append(tb.requests, e.Request.URL)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tb.mu.Lock()
		errs := append([]string(nil), tb.errors...)
		tb.mu.Unlock()
		cancelTimeout()
		cancel()
		for _, e := range errs {
			t.Errorf("JavaScript error on the page: %s", e)
		}
	})
	return tb
}

// do runs actions and fails the test on error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression into a T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("browser: evaluate %.80q: %v", expr, err)
	}
	return v
}

// await evaluates a JavaScript expression whose value is a promise.
func await[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("browser: evaluate %.80q: %v", expr, err)
	}
	return v
}

// eval0 evaluates JavaScript for its effect.
func (tb *tab) eval0(expr string) {
	tb.t.Helper()
	_ = eval[chromedp.Void](tb, expr)
}

// until waits for a JavaScript condition to hold (a polling wait, never a sleep).
func (tb *tab) until(what, expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var ok bool
	var err error
	for time.Now().Before(deadline) {
		// A navigation (a form post, a reload) interrupts a poll; poll again in the
		// new document until the deadline.
		ok, err = chromedp.Run(tb.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(25*time.Millisecond)))
		if ok || tb.ctx.Err() != nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if !ok {
		html, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 2000) : ""`))
		tb.t.Fatalf("timed out waiting for %s (%v); the page reads:\n%s", what, err, html)
	}
}

// liveJS holds once the page's script has its event stream open: the header
// says "Live". Before that, what the test does may race the script's wiring.
const liveJS = `document.querySelector("#live").innerText === "Live"`

// openLive opens url and waits until its page is live (liveJS).
func (tb *tab) openLive(url string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(url))
	tb.until("the page, live", liveJS)
}

// text is the visible text of the first element matching sel ("" when none).
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(function(){var e=document.querySelector(%q);return e?e.innerText:""})()`, sel))
}

// dark switches the page to the dark theme (prefers-color-scheme: dark).
func (tb *tab) dark(on bool) {
	tb.t.Helper()
	v := "light"
	if on {
		v = "dark"
	}
	if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}}); err != nil {
		tb.t.Fatal(err)
	}
}

// width sets the viewport width (CSS pixels).
func (tb *tab) width(w int64) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(w, 800))
}

// shot saves a full-page screenshot for a person to look at: under
// $FOLIO_SCREENSHOTS, else data/screenshots at the repository root (ignored by git).
func (tb *tab) shot(name string) string {
	tb.t.Helper()
	dir := os.Getenv("FOLIO_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "data", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot: %s", path)
	return path
}

// noSidewaysScroll fails when the page is wider than the viewport.
func (tb *tab) noSidewaysScroll(where string) {
	tb.t.Helper()
	over := eval[[]string](tb, `(function(){var w=document.documentElement.clientWidth,out=[];
		if(document.documentElement.scrollWidth>w)out.push("document "+document.documentElement.scrollWidth+">"+w);
		return out})()`)
	if len(over) > 0 {
		tb.t.Errorf("%s scrolls sideways: %v", where, over)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// keystroke is key r pressed as a keyboard presses it: its keydown carries its
// text, so the page gets keydown and keypress in one task, then its keyup.
// (chromedp.KeyEvent sends the text in a message of its own, which the page may
// get only after the keydown's work has moved the focus: an Enter on a link that
// opens a form then lands in the form's field and submits it.)
func keystroke(r rune) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		evs := kb.Encode(r)
		down := *evs[0]
		for _, e := range evs {
			if e.Type == kb.KeyChar {
				down.Text, down.UnmodifiedText = e.Text, e.UnmodifiedText
			}
		}
		for _, e := range []input.DispatchKeyEventParams{down, *evs[len(evs)-1]} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, e); err != nil {
				return err
			}
		}
		return nil
	})
}
