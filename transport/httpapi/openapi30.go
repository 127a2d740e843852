package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"sync"

	"github.com/julienschmidt/httprouter"
)

// OpenAPI 3.0.3 rendering of the one document (openapi.json), for code generators
// that read 3.0 only (oapi-codegen, ogen). It is derived, never edited: every
// construct of 3.1 (JSON Schema 2020-12) is rewritten to its 3.0 equivalent, and
// the few that have none are dropped, which only loosens a schema, never narrows it.
// So a client generated from it accepts every response the server sends.

var (
	openapi30Once sync.Once
	openapi30Doc  []byte
	openapi30Err  error
)

// openAPI30 returns the 3.0.3 rendering of OpenAPI().
func openAPI30() ([]byte, error) {
	openapi30Once.Do(func() { openapi30Doc, openapi30Err = downgradeOpenAPI(openapiDoc) })
	return openapi30Doc, openapi30Err
}

func (s *Server) openapi30(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	doc, err := openAPI30()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
	return nil
}

// schema31Only are JSON Schema keywords that OpenAPI 3.0's schema object lacks and
// that have no 3.0 spelling; dropping one widens what the schema accepts.
var schema31Only = []string{
	"$schema", "$id", "$anchor", "$defs", "$comment", "$dynamicRef", "$dynamicAnchor",
	"prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems",
	"unevaluatedProperties", "dependentRequired", "dependentSchemas", "patternProperties",
	"propertyNames", "if", "then", "else", "contentMediaType", "contentEncoding",
	"contentSchema",
}

// downgradeOpenAPI rewrites an OpenAPI 3.1 document as 3.0.3.
func downgradeOpenAPI(src []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	doc["openapi"] = "3.0.3"
	delete(doc, "jsonSchemaDialect")
	delete(doc, "webhooks")
	if info, ok := doc["info"].(map[string]any); ok {
		delete(info, "summary")
		if lic, ok := info["license"].(map[string]any); ok {
			delete(lic, "identifier")
		}
	}
	if comps, ok := doc["components"].(map[string]any); ok {
		delete(comps, "pathItems")
	}
	for k, v := range doc {
		if k == "openapi" || k == "info" {
			continue
		}
		doc[k] = downgradeNode(v)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// downgradeNode walks any part of the document. Schema keywords are only rewritten
// where their 3.1 form cannot be a 3.0 one (a type list, const, an examples list),
// so non-schema objects pass through unchanged.
func downgradeNode(v any) any {
	switch n := v.(type) {
	case []any:
		for i := range n {
			n[i] = downgradeNode(n[i])
		}
		return n
	case map[string]any:
		for k, c := range n {
			n[k] = downgradeNode(c)
		}
		downgradeSchema(n)
		return n
	default:
		return v
	}
}

func downgradeSchema(n map[string]any) {
	if types, ok := n["type"].([]any); ok {
		downgradeTypeList(n, types)
	}
	if c, ok := n["const"]; ok {
		n["enum"] = []any{c}
		delete(n, "const")
	}
	if ex, ok := n["examples"].([]any); ok {
		if len(ex) > 0 {
			n["example"] = ex[0]
		}
		delete(n, "examples")
	}
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		if lim, ok := n[k].(float64); ok {
			n[map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[k]] = lim
			n[k] = true
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := n[k].([]any); ok {
			n[k] = dropNullAlternative(n, alts)
		}
	}
	if t, ok := n["type"].(string); ok && t == "null" {
		delete(n, "type")
		n["nullable"] = true
	}
	for _, k := range schema31Only {
		delete(n, k)
	}
}

// downgradeTypeList turns `type: [a, "null"]` into `type: a, nullable: true`, and a
// list of several types into anyOf over them (the other keywords stay beside it:
// each constrains only values of its own type, as in 3.1).
func downgradeTypeList(n map[string]any, types []any) {
	var kinds []string
	nullable := false
	for _, t := range types {
		s, _ := t.(string)
		if s == "null" {
			nullable = true
			continue
		}
		kinds = append(kinds, s)
	}
	delete(n, "type")
	if nullable {
		n["nullable"] = true
	}
	switch len(kinds) {
	case 0:
	case 1:
		n["type"] = kinds[0]
	default:
		sort.Strings(kinds)
		alts := make([]any, len(kinds))
		for i, k := range kinds {
			alt := map[string]any{"type": k}
			if nullable {
				alt["nullable"] = true
			}
			// A keyword that constrains one type moves into that type's branch: 3.0
			// requires `items` beside `type: array`, and generators read them there.
			for _, kw := range typeKeywords[k] {
				if v, ok := n[kw]; ok {
					alt[kw] = v
					delete(n, kw)
				}
			}
			if k == "array" && alt["items"] == nil {
				alt["items"] = map[string]any{}
			}
			alts[i] = alt
		}
		n["anyOf"] = alts
	}
}

// typeKeywords are the schema keywords that apply to values of one JSON type only.
var typeKeywords = map[string][]string{
	"array":   {"items", "minItems", "maxItems", "uniqueItems"},
	"object":  {"properties", "additionalProperties", "required", "minProperties", "maxProperties"},
	"string":  {"minLength", "maxLength", "pattern", "format"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
}

// dropNullAlternative removes `{type: "null"}` from a oneOf/anyOf and marks the
// schema nullable instead; a single remaining alternative stays a one-item list.
func dropNullAlternative(n map[string]any, alts []any) []any {
	out := alts[:0]
	for _, a := range alts {
		if m, ok := a.(map[string]any); ok && len(m) == 1 && m["nullable"] == true {
			n["nullable"] = true // was {type: "null"}, already rewritten below it
			continue
		}
		out = append(out, a)
	}
	return out
}
