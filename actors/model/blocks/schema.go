package blocks

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
)

// schemaID is the $id of the catalog's JSON Schema.
const schemaID = "https://folio.dev/schema/blocks.json"

// Schema returns the JSON Schema (draft 2020-12) of a list of blocks, generated
// from the catalog the validator reads. $defs holds Block, one data schema per
// block type (named after the type) and the shared tree_node. A block of an
// unknown type is valid; a known type's data must match its schema. The
// schema states shapes only: cross-field rules (lengths that must match,
// value within max, unique ids) are checked by Prepare alone.
func Schema() []byte {
	return bytes.Clone(schemaBytes())
}

var schemaBytes = sync.OnceValue(func() []byte {
	b, err := json.MarshalIndent(buildSchema(), "", "  ")
	if err != nil {
		panic("blocks: schema does not encode: " + err.Error()) // a bug in the catalog, caught by the tests
	}
	return b
})

type obj = map[string]any

func buildSchema() obj {
	defs := obj{}
	var perType []any
	for _, bt := range catalog {
		s := objectSchema(bt.data, defs)
		s["title"], s["description"] = bt.name, bt.doc
		defs[bt.name] = s
		then := obj{"properties": obj{"data": obj{"$ref": "#/$defs/" + bt.name}}}
		if hasRequired(bt.data) {
			then["required"] = []string{"data"}
		}
		perType = append(perType, obj{
			"if":   obj{"properties": obj{"type": obj{"const": bt.name}}, "required": []string{"type"}},
			"then": then,
		})
	}
	defs["Block"] = obj{
		"title":       "Block",
		"description": "One content block. Types outside the catalog are accepted and rendered generically.",
		"type":        "object",
		"required":    []string{"type"},
		"properties": obj{
			"id":    obj{"type": "string"},
			"type":  obj{"type": "string", "minLength": 1},
			"data":  obj{"description": "Type-specific fields; see the $defs entry named after the type."},
			"group": obj{"type": "string"},
			"tab":   obj{"type": "string"},
		},
		"allOf": perType,
	}
	return obj{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         schemaID,
		"title":       "Folio blocks",
		"description": "A list of Folio content blocks.",
		"type":        "array",
		"items":       obj{"$ref": "#/$defs/Block"},
		"$defs":       defs,
	}
}

func hasRequired(o *object) bool {
	for _, f := range o.fields {
		if f.required {
			return true
		}
	}
	return len(o.anyOf) > 0
}

// objectSchema renders o. Optional members may be null, which the validator
// reads as absent.
func objectSchema(o *object, defs obj) obj {
	props := obj{}
	var required []string
	for i := range o.fields {
		f := &o.fields[i]
		s := fieldSchema(f, defs)
		if f.required {
			required = append(required, f.name)
		} else {
			s = nullable(s)
		}
		if f.old {
			s["deprecated"] = true
		}
		props[f.name] = s
	}
	s := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if len(o.anyOf) > 0 {
		var alts []any
		for _, k := range o.anyOf {
			alts = append(alts, obj{"required": []string{k}})
		}
		s["anyOf"] = alts
	}
	return s
}

func fieldSchema(f *field, defs obj) obj {
	s := kindSchema(f, defs)
	if f.nullable {
		s = nullable(s)
	}
	if f.hint != "" {
		s["description"] = f.hint
	}
	return s
}

// kindSchema renders the shape of f: the JSON types from the kinds table, then
// what the kind adds (enum, bounds, pattern, members, elements).
func kindSchema(f *field, defs obj) obj {
	s := obj{}
	if ts := kinds[f.kind].types; len(ts) == 1 {
		s["type"] = ts[0]
	} else if len(ts) > 1 {
		s["type"] = slices.Clone(ts)
	}
	number := obj{"type": "number"}
	switch f.kind {
	case kString:
		if len(f.enum) > 0 {
			s["enum"] = f.enum
		}
	case kInteger:
		s["minimum"] = f.min
	case kTime:
		s["pattern"] = timePattern
	case kURL:
		s["minLength"], s["pattern"] = 1, urlPattern
	case kImageURL:
		s["minLength"], s["pattern"] = 1, imageURLPattern
	case kObject:
		if f.obj.name == "" {
			return objectSchema(f.obj, defs)
		}
		if _, done := defs[f.obj.name]; !done {
			defs[f.obj.name] = obj{} // reserve the name: the object may refer to itself
			defs[f.obj.name] = objectSchema(f.obj, defs)
		}
		return obj{"$ref": "#/$defs/" + f.obj.name}
	case kArray:
		s["items"] = fieldSchema(f.elem, defs)
	case kMap:
		s["additionalProperties"] = fieldSchema(f.elem, defs)
	case kBlocks:
		s["items"] = obj{"$ref": "#/$defs/Block"}
	case kPoint:
		s["anyOf"] = []any{
			number,
			obj{"type": "object", "required": []string{"x", "y"}, "properties": obj{"x": number, "y": number}},
			obj{"type": "array", "items": number, "minItems": 2, "maxItems": 2},
		}
	}
	return s
}

// nullable widens s to accept null as well.
func nullable(s obj) obj {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []string{t, "null"}
		if e, ok := s["enum"].([]string); ok {
			s["enum"] = append(append([]any{}, anySlice(e)...), nil)
		}
		return s
	case []string:
		s["type"] = append(append([]string{}, t...), "null")
		return s
	}
	if len(s) == 0 {
		return s // {} already accepts null
	}
	return obj{"anyOf": []any{s, obj{"type": "null"}}}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
