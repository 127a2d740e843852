package foliomcp

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"folio/transport/apitypes"
)

// The tools' JSON Schemas are generated from the input and output types (as the SDK
// would), then made portable: every client, including those that map tool schemas
// onto a single-`type` dialect (Gemini's OpenAPI subset, OpenAPI 3.0), reads them
// the same way. schemaOf keeps three rules:
//   - no `type` list: a slice or pointer is its own type (`array`, `object`), never
//     `["null", …]`; an absent field is how a tool says "none";
//   - every schema constrains its value (a type, or anyOf of typed branches);
//   - a field with a closed set of values lists them: the `enum:"a,b"` struct tag
//     becomes the schema's enum, `minimum:"1"` its minimum (the tags sit beside
//     the field's description, so the two can't drift apart).

// schemaOf is T's portable JSON Schema, as a generic JSON object.
func schemaOf[T any]() map[string]any {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: wireSchemas})
	if err != nil {
		panic("foliomcp: the schema of " + t.String() + ": " + err.Error()) // a programming error, found by every test
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	portable(m)
	annotate(m, t)
	return m
}

// wireSchemas are the schemas of the types that write themselves, as they are on
// the wire (the SDK would infer them from their Go kinds): raw JSON is the object
// it holds (block data, an edit's data, an event's data; typed as bytes, a real
// object would fail validation in every SDK), the API's nullable times and
// strings are a string when present, a limit an integer.
var wireSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage]():     {Type: "object"},
	reflect.TypeFor[time.Time]():           {Type: "string", Format: "date-time"},
	reflect.TypeFor[apitypes.NullTime]():   {Type: "string", Format: "date-time"},
	reflect.TypeFor[apitypes.NullString](): {Type: "string"},
	reflect.TypeFor[apitypes.Limit]():      {Type: "integer"},
}

// anyValue is the schema of a member whose Go type says nothing (any): every
// JSON value but null, each branch typed (a bare true would constrain nothing).
func anyValue() map[string]any {
	var branches []any
	for _, t := range []string{"object", "array", "string", "number", "boolean"} {
		branches = append(branches, map[string]any{"type": t})
	}
	return map[string]any{"anyOf": branches}
}

// portable rewrites `type: ["null", X]` as `type: X`, and a member or item schema
// `true` (Go's any) as anyValue, in the whole tree.
func portable(node any) {
	switch n := node.(type) {
	case map[string]any:
		if ts, ok := n["type"].([]any); ok {
			var kept []any
			for _, t := range ts {
				if t != "null" {
					kept = append(kept, t)
				}
			}
			if len(kept) == 1 {
				n["type"] = kept[0]
			} else {
				n["type"] = kept
			}
		}
		if props, ok := n["properties"].(map[string]any); ok {
			for k, v := range props {
				if v == true {
					props[k] = anyValue()
				}
			}
		}
		if n["items"] == true {
			n["items"] = anyValue()
		}
		for _, v := range n {
			portable(v)
		}
	case []any:
		for _, v := range n {
			portable(v)
		}
	}
}

// annotate walks the Go type beside its schema: struct tags `enum` and `minimum`
// become the schema's keywords, and a field whose Go type says nothing (any) but
// is tagged `schema:"object_or_array"` gets anyOf an object or an array of objects.
func annotate(s map[string]any, t reflect.Type) {
	members(s, t, func(_ map[string]any, f reflect.StructField, _ string, p map[string]any) {
		if e := f.Tag.Get("enum"); e != "" {
			var vals []any
			for v := range strings.SplitSeq(e, ",") {
				vals = append(vals, v)
			}
			p["enum"] = vals
		}
		if m := f.Tag.Get("minimum"); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil {
				panic("foliomcp: minimum tag of " + f.Name)
			}
			p["minimum"] = n
		}
		if f.Tag.Get("schema") == "object_or_array" {
			p["anyOf"] = []any{
				map[string]any{"type": "object", "additionalProperties": true},
				map[string]any{"type": "array", "items": map[string]any{"type": "object", "additionalProperties": true}},
			}
		}
	})
}

// members walks the Go type t beside its schema s and calls visit for every
// member of every struct t holds (itself, through pointers, slices, arrays and map
// values, at any depth) that the schema declares: the struct's schema, the field,
// its JSON name and its schema. An embedded struct without a JSON name is walked
// as part of its parent, as encoding/json flattens it.
func members(s map[string]any, t reflect.Type, visit func(parent map[string]any, f reflect.StructField, name string, p map[string]any)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := s["items"].(map[string]any); ok {
			members(items, t.Elem(), visit)
		}
	case reflect.Map:
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			members(ap, t.Elem(), visit)
		}
	case reflect.Struct:
		props, _ := s["properties"].(map[string]any)
		for f := range t.Fields() {
			if f.Anonymous && f.Tag.Get("json") == "" {
				members(s, f.Type, visit)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			p, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			visit(s, f, name, p)
			members(p, f.Type, visit)
		}
	}
}
