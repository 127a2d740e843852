package client

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// wireTypes maps every struct the client sends or reads to its schema in
// transport/httpapi/openapi.json: a components.schemas name, or a JSON pointer for
// a schema written inline in a path.
var wireTypes = []struct {
	v      any
	schema string
}{
	// Answers.
	{envelope{}, "ErrorEnvelope"},
	{Registration{}, "Registration"},
	{Me{}, "Me"},
	{Tenant{}, "Tenant"},
	{Dashboard{}, "Dashboard"},
	{QualityScore{}, "QualityScore"},
	{PublishResult{}, "PublishResult"},
	{DraftCreated{}, "DraftCreated"},
	{DraftPublished{}, "DraftPublished"},
	{Page{}, "Page"},
	{UpdatedPage{}, "PageWithWarnings"},
	{PageList{}, "PageList"},
	{Revoked{}, "Revoked"},
	{Renewed{}, "Renewed"},
	{AuditList{}, "AuditList"},
	{BlocksAppended{}, "BlocksAppended"},
	{BlockFixed{}, "BlockFixed"},
	{BlockList{}, "BlockList"},
	{BlockInserted{}, "BlockInserted"},
	{ActionExecuted{}, "ActionExecuted"},
	{Comment{}, "Comment"},
	{CommentList{}, "CommentList"},
	{presigned{}, "FilePresigned"},
	{uploaded{}, "FileUploaded"},
	{File{}, "File"},
	{FileList{}, "FileList"},
	{InboxList{}, "InboxList"},
	{TemplateList{}, "TemplateList"},
	{WorkflowCreated{}, "WorkflowCreated"},
	{Workflow{}, "Workflow"},
	{ApprovalStatus{}, "ApprovalStatus"},
	{DeliveryList{}, "DeliveryList"},
	{Delivery{}, "Delivery"},
	{DeliveryQueued{}, "DeliveryQueued"},
	{Outcome{}, "WaitOutcome"},
	{Event{}, "Event"},
	{EventList{}, "AgentEventList"},

	// Requests.
	{RegisterRequest{}, "RegisterRequest"},
	{PageRequest{}, "PageRequest"},
	{PageUpdate{}, "PageUpdate"},
	{revokeRequest{}, "#/paths/~1v1~1pages~1{id}~1revoke/post/requestBody/content/application~1json/schema"},
	{renewRequest{}, "#/paths/~1v1~1pages~1{id}~1renew/post/requestBody/content/application~1json/schema"},
	{blockAppend{}, "BlockAppend"},
	{BlockPatch{}, "BlockPatch"},
	{blockOrder{}, "BlockOrder"},
	{blockInsert{}, "BlockInsert"},
	{ActionRequest{}, "ActionRequest"},
	{CommentRequest{}, "CommentRequest"},
	{CommentEdit{}, "CommentEdit"},
	{CommentDelete{}, "CommentDelete"},
	{presignRequest{}, "FilePresignRequest"},
	{completeRequest{}, "FileCompleteRequest"},
	{starRequest{}, "InboxStar"},
	{TemplateRequest{}, "TemplatePublishRequest"},
	{AGUIRequest{}, "AGUIRequest"},
	{WorkflowRequest{}, "WorkflowRequest"},
}

// leftOut are the documented properties a client struct deliberately lacks, as
// "<Go type>.<property>", each with its reason.
var leftOut = map[string]string{
	"ActionRequest.form_values":   "what the review page's HTML form sends; an agent sends form_data",
	"BlockList.blockId":           "only in the answer of an insert (BlockInserted has it)",
	"BlockList.warnings":          "only in the answer of an insert (BlockInserted has it)",
	"presignRequest.upload_type":  "the server derives it from the credential",
	"completeRequest.filename":    "complete takes presign's values unless repeated",
	"completeRequest.mime_type":   "complete takes presign's values unless repeated",
	"completeRequest.uploaded_by": "complete takes presign's values unless repeated",
	"completeRequest.upload_type": "the server derives it from the credential",
}

// notInOpenAPI are the client's JSON structs the OpenAPI document does not describe:
// callback bodies (checked against a real callback in delivery_test.go) and the
// stream's reset data (documented in the agentEvents operation's text).
var notInOpenAPI = []string{"CallbackEvent", "ActionExecutedData", "StepCompletedData", "ChainCompletedData",
	"StepSummary", "PageExpiredData", "PageViewedData", "FormSubmittedData", "ResetData"}

// TestTypesMatchTheOpenAPIDocument: every JSON field a client struct declares is a
// property of its schema (resolving $ref, allOf and the non-null alternatives of
// oneOf, down through nested objects and arrays), every required property has a
// field, and every other property has one too unless leftOut says why not. Every
// JSON struct of the package is reached from wireTypes or listed in notInOpenAPI,
// so a new type cannot escape the check.
func TestTypesMatchTheOpenAPIDocument(t *testing.T) {
	raw, err := os.ReadFile("../httpapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	d := &openapiDoc{}
	if err := json.Unmarshal(raw, &d.root); err != nil {
		t.Fatal(err)
	}
	w := &walker{t: t, d: d, visited: map[string]bool{}, usedLeftOut: map[string]bool{}}
	for _, wt := range wireTypes {
		s := d.schema(wt.schema)
		if s == nil {
			t.Errorf("%T: schema %q is not in the document", wt.v, wt.schema)
			continue
		}
		typ := reflect.TypeOf(wt.v)
		w.check(typ, s, typ.Name()+" ("+wt.schema+")")
	}
	for k, why := range leftOut {
		if !w.usedLeftOut[k] {
			t.Errorf("leftOut[%q] (%q) is stale: the struct has that field or the schema lost it", k, why)
		}
	}
	for _, name := range jsonStructs(t) {
		if !w.visited[name] && !slices.Contains(notInOpenAPI, name) {
			t.Errorf("%s is a JSON struct of the client that no wireTypes entry reaches", name)
		}
	}
}

type walker struct {
	t           *testing.T
	d           *openapiDoc
	visited     map[string]bool
	usedLeftOut map[string]bool
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// check compares struct type typ with the object schema s.
func (w *walker) check(typ reflect.Type, s map[string]any, where string) {
	w.t.Helper()
	w.visit(typ)
	props, required, ok := w.d.object(s)
	if !ok {
		return // an open object (additionalProperties only): nothing to compare
	}
	fields := jsonFields(typ)
	for name, ft := range fields {
		p, found := props[name]
		if !found {
			w.t.Errorf("%s: field %q is not a property of the schema (has %v)", where, name, sortedKeys(props))
			continue
		}
		w.nested(ft, p, where+"."+name)
	}
	for _, r := range required {
		if _, ok := fields[r]; !ok {
			w.t.Errorf("%s: the schema requires %q, which no field reads", where, r)
		}
	}
	for name := range props {
		if _, ok := fields[name]; ok {
			continue
		}
		key := typ.Name() + "." + name
		if _, ok := leftOut[key]; ok {
			w.usedLeftOut[key] = true
			continue
		}
		w.t.Errorf("%s: the schema's property %q has no field (add one, or list %q in leftOut)", where, name, key)
	}
}

// visit records typ, and the structs embedded in it, as checked; a generic
// type (apitypes.PageList[Page]) by its declared name.
func (w *walker) visit(typ reflect.Type) {
	if name, _, _ := strings.Cut(typ.Name(), "["); name != "" {
		w.visited[name] = true
	}
	for f := range typ.Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			w.visit(f.Type)
		}
	}
}

// nested follows a field into its schema when the field holds structs.
func (w *walker) nested(ft reflect.Type, p map[string]any, where string) {
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	switch {
	case ft == timeType || ft == reflect.TypeFor[json.RawMessage]() || ft.Implements(marshalerType):
		// a leaf: a time, raw JSON, or a type that writes itself (apitypes.NullTime)
	case ft.Kind() == reflect.Slice:
		if items := w.d.items(p); items != nil {
			w.nested(ft.Elem(), items, where+"[]")
		} else {
			w.t.Errorf("%s: a slice, but the schema is not an array", where)
		}
	case ft.Kind() == reflect.Struct:
		w.check(ft, p, where)
	}
}

// jsonFields lists a struct's JSON names and types, with the fields of embedded
// structs promoted as encoding/json does.
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// jsonStructs lists the struct types with a json tag of the package and of
// transport/apitypes, whose answers the client re-exports.
func jsonStructs(t *testing.T) []string {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := filepath.Glob("../apitypes/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, shared...)
	fset := token.NewFileSet()
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fd := range st.Fields.List {
				if fd.Tag != nil && strings.Contains(fd.Tag.Value, `json:"`) {
					out = append(out, ts.Name.Name)
					break
				}
			}
			return true
		})
	}
	slices.Sort(out)
	return out
}

// openapiDoc resolves schemas of the document, read as plain JSON.
type openapiDoc struct {
	root map[string]any
}

// schema finds a components.schemas name or a JSON pointer ("#/…").
func (d *openapiDoc) schema(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		ref = "#/components/schemas/" + ref
	}
	var cur any = d.root
	for _, seg := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}

// deref follows $ref.
func (d *openapiDoc) deref(s map[string]any) map[string]any {
	for s != nil {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s = d.schema(ref)
	}
	return s
}

// object flattens s into the properties and required names of the object it
// describes: allOf parts merged, and the non-null alternatives of oneOf/anyOf
// merged. ok is false when no part declares properties.
func (d *openapiDoc) object(s map[string]any) (props map[string]map[string]any, required []string, ok bool) {
	props = map[string]map[string]any{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		s = d.deref(s)
		if s == nil {
			return
		}
		if ps, found := s["properties"].(map[string]any); found {
			ok = true
			for k, v := range ps {
				if m, isMap := v.(map[string]any); isMap {
					props[k] = m
				}
			}
		}
		for _, r := range asSlice(s["required"]) {
			if name, isString := r.(string); isString {
				required = append(required, name)
			}
		}
		for _, part := range asSlice(s["allOf"]) {
			if m, isMap := part.(map[string]any); isMap {
				walk(m)
			}
		}
		for _, key := range []string{"oneOf", "anyOf"} {
			for _, alt := range asSlice(s[key]) {
				if m, isMap := alt.(map[string]any); isMap && m["type"] != "null" {
					walk(m)
				}
			}
		}
	}
	walk(s)
	return props, required, ok
}

// items is the item schema of an array schema (also behind $ref, or one of a
// oneOf's alternatives).
func (d *openapiDoc) items(s map[string]any) map[string]any {
	s = d.deref(s)
	if s == nil {
		return nil
	}
	if it, ok := s["items"].(map[string]any); ok {
		return it
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		for _, alt := range asSlice(s[key]) {
			if m, ok := alt.(map[string]any); ok {
				if it := d.items(m); it != nil {
					return it
				}
			}
		}
	}
	return nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func sortedKeys(m map[string]map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
