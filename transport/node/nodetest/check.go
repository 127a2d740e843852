package nodetest

// Contract checking: every response the test harness sees is validated against the
// OpenAPI document served at /v1/openapi.json (transport/httpapi/openapi.json).
//
// Library: github.com/getkin/kin-openapi (openapi3 + openapi3filter). It reads
// `openapi: 3.1.0` documents, validates them as 3.1, and checks bodies with JSON
// Schema 2020-12 semantics (type arrays such as ["string","null"], formats such as
// date-time).
//
// Rules of the checker (Check):
//   - The request is matched to a documented path template for its method; literal
//     segments win over parameters (as in httprouter).
//   - The status must be declared for that operation (or a `default` response).
//   - A JSON response must match the declared schema; declared response headers
//     (Location, Retry-After) are checked too.
//   - text/event-stream responses and hijacked connections (WebSocket) are checked
//     for their status only. Other non-JSON bodies are checked for a declared status
//     and headers, and reported where the document declares only JSON.
//   - A documented route that answers the router's own "no route for …" 404 is
//     reported.
//   - A request that matches no documented operation must be the router's 404 or
//     405 and is validated against components.responses.Error; any other status means
//     the route exists but is not documented, and is reported.
//   - OPTIONS requests (answered by httprouter itself) are not checked.
// Every registered route is documented: TestOpenAPIDocumentIsValid compares the
// router's own list (httpapi.Server.Routes) with the document.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"folio/transport/httpapi"
)

// StrictCoverage fails a test that meets an undocumented route or an undeclared
// status; schemas of documented responses are always checked, and
// TestOpenAPIDocumentIsValid requires every route to be documented.
const StrictCoverage = true

// Check wraps h so that every request/response pair passing through it is
// validated against the OpenAPI document; a mismatch fails t.
func Check(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	spec, err := loadOpenAPI()
	if err != nil {
		// Errorf, not Fatalf: the caller has already opened a node and must still clean it up.
		t.Errorf("openapi: the document transport/httpapi/openapi.json does not load: %v", err)
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &captureWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		status := cw.status
		if status == 0 {
			status = http.StatusOK // a handler that writes nothing answers 200
		}
		if problems := spec.check(r, status, w.Header(), cw); len(problems) > 0 {
			t.Errorf("openapi: %s %s -> %d: %s\n\tbody: %s", r.Method, r.URL.RequestURI(), status,
				strings.Join(problems, "; "), Excerpt(cw.body.Bytes(), 600))
		}
		spec.recordShape(r, status, w.Header(), cw.body.Bytes())
	})
}

var (
	openapiOnce sync.Once
	openapiSpc  *openapiSpec
	openapiErr  error
)

// loadOpenAPI parses and validates the document once per test binary; a failure is
// remembered and reported by every caller.
func loadOpenAPI() (*openapiSpec, error) {
	openapiOnce.Do(func() { openapiSpc, openapiErr = parseOpenAPI(httpapi.OpenAPI()) })
	return openapiSpc, openapiErr
}

// openapiSpec is the loaded document with its path templates ready for matching.
type openapiSpec struct {
	doc       *openapi3.T
	templates []*pathTemplate
	fallback  *openapi3.Operation // responses 404 and 405: components.responses.Error
}

type pathTemplate struct {
	path     string   // as written in the document: /v1/pages/{id}
	segs     []string // "v1", "pages", "{id}"
	item     *openapi3.PathItem
	catchAll bool // the last parameter is marked x-folio-catch-all: it spans the rest of the path (httprouter's *name)
}

// isCatchAll reports whether the path item's last path parameter carries
// x-folio-catch-all.
func isCatchAll(item *openapi3.PathItem) bool {
	for _, p := range item.Parameters {
		if p.Value != nil && p.Value.In == "path" && p.Value.Extensions["x-folio-catch-all"] == true {
			return true
		}
	}
	return false
}

func parseOpenAPI(raw []byte) (*openapiSpec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("openapi is %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context, openapi3.EnableSchemaFormatValidation(), openapi3.EnableSchemaPatternValidation()); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	s := &openapiSpec{doc: doc}
	for _, p := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(p)
		s.templates = append(s.templates, &pathTemplate{path: p, segs: strings.Split(strings.Trim(p, "/"), "/"), item: item, catchAll: isCatchAll(item)})
	}
	if doc.Components == nil || doc.Components.Responses["Error"] == nil {
		return nil, errors.New("components.responses.Error (the document-wide error response) is missing")
	}
	fallback := openapi3.NewResponses()
	fallback.Set("404", doc.Components.Responses["Error"])
	fallback.Set("405", doc.Components.Responses["Error"])
	s.fallback = &openapi3.Operation{Responses: fallback}
	return s, nil
}

// match finds the documented template for path; literal segments win over
// parameters, segment by segment from the left (httprouter's rule). It returns the
// best template that has an operation for method, and whether any template matches
// the path at all.
func (s *openapiSpec) match(method, path string) (t *pathTemplate, op *openapi3.Operation, params map[string]string, pathKnown bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var bestScore []bool
	for _, tp := range s.templates {
		ps, score, ok := tp.bind(segs)
		if !ok {
			continue
		}
		pathKnown = true
		o := tp.item.GetOperation(method)
		if o == nil {
			continue
		}
		if t == nil || better(score, bestScore) {
			t, op, params, bestScore = tp, o, ps, score
		}
	}
	return t, op, params, pathKnown
}

// bind matches segs against the template; score[i] is true where segment i is literal.
func (tp *pathTemplate) bind(segs []string) (map[string]string, []bool, bool) {
	if tp.catchAll && len(segs) > len(tp.segs) {
		// Fold the rest of the path into the last (catch-all) segment.
		n := len(tp.segs)
		segs = append(append([]string{}, segs[:n-1]...), strings.Join(segs[n-1:], "/"))
	}
	if len(segs) != len(tp.segs) {
		return nil, nil, false
	}
	params := map[string]string{}
	score := make([]bool, len(segs))
	for i, ts := range tp.segs {
		if strings.HasPrefix(ts, "{") && strings.HasSuffix(ts, "}") {
			if segs[i] == "" {
				return nil, nil, false
			}
			params[ts[1:len(ts)-1]] = segs[i]
			continue
		}
		if ts != segs[i] {
			return nil, nil, false
		}
		score[i] = true
	}
	return params, score, true
}

func better(a, b []bool) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return false
}

// check validates one response and returns what is wrong with it.
func (s *openapiSpec) check(r *http.Request, status int, header http.Header, cw *captureWriter) []string {
	if r.Method == http.MethodOptions || cw.hijacked {
		return nil
	}
	tmpl, op, params, pathKnown := s.match(r.Method, r.URL.Path)
	documented := op != nil
	routeName := ""
	if documented {
		routeName = r.Method + " " + tmpl.path
	} else {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			what := "path"
			if pathKnown {
				what = "method for this path"
			}
			if !StrictCoverage {
				return nil
			}
			return []string{fmt.Sprintf("the route is not in the OpenAPI document (unknown %s) but answered %d: document it in transport/httpapi/openapi.json", what, status)}
		}
		op = s.fallback
		routeName = "(no documented route: components.responses.Error)"
		tmpl = &pathTemplate{path: r.URL.Path, item: &openapi3.PathItem{}}
		params = map[string]string{}
	}

	declared := op.Responses.Status(status)
	if declared == nil {
		declared = op.Responses.Default()
	}
	if declared == nil {
		if !StrictCoverage {
			return nil
		}
		return []string{fmt.Sprintf("status %d is not declared for %s (declared: %s)", status, routeName, strings.Join(op.Responses.Keys(), ", "))}
	}

	ct := header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	var problems []string
	if documented && status == http.StatusNotFound && isJSON && cw.complete() {
		var env struct {
			Error struct{ Message string } `json:"error"`
		}
		// Operations marked x-folio-mounted-when exist only under a configuration
		// (the admin API with --admin-token); without it the router's 404 is right.
		_, conditional := op.Extensions["x-folio-mounted-when"]
		if !conditional && json.Unmarshal(cw.body.Bytes(), &env) == nil && strings.HasPrefix(env.Error.Message, "no route for") {
			problems = append(problems, fmt.Sprintf("%s is documented but the router has no such route", routeName))
		}
	}
	if mt == "text/event-stream" || cw.streaming {
		return problems // streams: the status is all we check
	}
	bodyChecked := isJSON && cw.complete()
	if !isJSON && cw.body.Len() > 0 && declared.Value != nil && onlyJSON(declared.Value.Content) {
		problems = append(problems, fmt.Sprintf("the document declares a JSON body for %d but the response is %q", status, ct))
	}

	route := &routers.Route{Spec: s.doc, Path: tmpl.path, PathItem: tmpl.item, Method: r.Method, Operation: op}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: !bodyChecked}
	opts.WithCustomSchemaErrorFunc(schemaErrorText)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header.Clone(),
		Options:                opts,
	}
	in.SetBodyBytes(bytes.Clone(cw.body.Bytes()))
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		problems = append(problems, fmt.Sprintf("%s: %s", routeName, validationText(err)))
	}
	return problems
}

func onlyJSON(c openapi3.Content) bool {
	if len(c) == 0 {
		return false
	}
	for k := range c {
		if k != "application/json" && !strings.HasSuffix(k, "+json") {
			return false
		}
	}
	return true
}

// schemaErrorText keeps schema errors short: the JSON pointer and the reason, not the
// whole schema and value.
func schemaErrorText(err *openapi3.SchemaError) string {
	reason := err.Reason
	if reason == "" && err.Origin != nil {
		reason = err.Origin.Error()
	}
	if reason == "" {
		reason = "does not match schema keyword " + err.SchemaField
	}
	if p := err.JSONPointer(); len(p) > 0 && !strings.HasPrefix(reason, "at '") {
		return "at /" + strings.Join(p, "/") + ": " + reason
	}
	return reason
}

func validationText(err error) string {
	var re *openapi3filter.ResponseError
	if errors.As(err, &re) && re.Err != nil {
		var me openapi3.MultiError
		if errors.As(re.Err, &me) {
			parts := make([]string, len(me))
			for i, e := range me {
				parts[i] = e.Error()
			}
			return re.Reason + ": " + strings.Join(parts, " | ")
		}
		return re.Reason + ": " + re.Err.Error()
	}
	return err.Error()
}

// Excerpt is the start of b for messages.
func Excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// maxCapture bounds how much of a body is kept for validation.
const maxCapture = 8 << 20

// captureWriter passes the response through and keeps its status and body.
type captureWriter struct {
	http.ResponseWriter
	status    int
	body      bytes.Buffer
	overflow  bool
	streaming bool
	hijacked  bool
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 && code >= 200 {
		c.status = code
		if mt, _, _ := mime.ParseMediaType(c.Header().Get("Content-Type")); mt == "text/event-stream" {
			c.streaming = true
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if !c.streaming && !c.overflow {
		if c.body.Len()+len(b) > maxCapture {
			c.overflow = true
			c.body.Reset()
		} else {
			c.body.Write(b)
		}
	}
	return c.ResponseWriter.Write(b)
}

// complete tells whether the whole body was kept.
func (c *captureWriter) complete() bool { return !c.overflow && !c.streaming }

// Flush lets streaming handlers flush through the checker.
func (c *captureWriter) Flush() {
	if mt, _, _ := mime.ParseMediaType(c.Header().Get("Content-Type")); mt == "text/event-stream" {
		c.streaming = true
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

// Hijack lets WebSocket upgrades through; a hijacked connection is not checked.
func (c *captureWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(c.ResponseWriter).Hijack()
	if err == nil {
		c.hijacked = true
	}
	return conn, rw, err
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Document is a parsed and validated OpenAPI document.
type Document struct{ spec *openapiSpec }

// ParseDocument parses and validates raw as OpenAPI 3.1.
func ParseDocument(raw []byte) (*Document, error) {
	s, err := parseOpenAPI(raw)
	if err != nil {
		return nil, err
	}
	return &Document{spec: s}, nil
}

// Template is one documented path.
type Template struct {
	Path string
	Item *openapi3.PathItem
}

// Templates lists the documented paths.
func (d *Document) Templates() []Template {
	out := make([]Template, 0, len(d.spec.templates))
	for _, tp := range d.spec.templates {
		out = append(out, Template{Path: tp.path, Item: tp.item})
	}
	return out
}

// Doc is the underlying kin-openapi document.
func (d *Document) Doc() *openapi3.T { return d.spec.doc }

// DocumentedRoutes lists "METHOD /template" for every documented operation.
func (d *Document) DocumentedRoutes() []string {
	var out []string
	for _, tp := range d.spec.templates {
		for method := range tp.item.Operations() {
			out = append(out, method+" "+tp.path)
		}
	}
	sort.Strings(out)
	return out
}
