package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"folio/actors/model/fault"
	"folio/actors/model/jsonlimit"
)

// decode reads a JSON body of at most s.maxBody bytes into dst. Unknown fields are
// ignored (forward compatibility); a known field of the wrong JSON type is a 400 naming
// the field; an empty body is allowed only when optional.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, dst any, optional bool) error {
	_, err := s.decodeRaw(w, r, dst, optional)
	return err
}

// decodeRaw is decode that also returns the body it read (nil when it was empty),
// for the routes that look at it again (page requests warn of unknown fields).
func (s *Server) decodeRaw(w http.ResponseWriter, r *http.Request, dst any, optional bool) ([]byte, error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fault.New(fault.TooLarge, fmt.Sprintf("the body is larger than %d bytes", s.maxBody),
				map[string]any{"limit": s.maxBody, "constraint": "max_body_bytes"})
		}
		return nil, fault.New(fault.Invalid, "the body could not be read", map[string]any{"constraint": "readable"})
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		if optional {
			return nil, nil
		}
		return nil, fault.New(fault.Invalid, "a JSON body is required", map[string]any{"constraint": "required", "field": ""})
	}
	return raw, decodeBytes(raw, dst)
}

func decodeBytes(raw []byte, dst any) error {
	if err := checkShape(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		return jsonError(raw, err)
	}
	if dec.More() {
		return fault.New(fault.Invalid, "the body holds more than one JSON value", map[string]any{"constraint": "json"})
	}
	return nil
}

// checkShape refuses, in one linear pass before anything decodes it, JSON nested
// deeper than jsonlimit.MaxDepth anywhere (block data, form data, variables,
// protocol payloads) and any string that is not valid UTF-8: every JSON body of the
// API passes here, so no write of agent or reviewer text stores bytes that would be
// served back as invalid JSON.
func checkShape(raw []byte) error {
	d := jsonlimit.Scan(raw, jsonlimit.MaxDepth)
	if d == nil {
		return nil
	}
	field := d.Path
	if field == "" {
		field = "(body)"
	}
	if d.Constraint == jsonlimit.ConstraintUTF8 {
		return fault.New(fault.Invalid, field+" is not valid UTF-8 text: send text encoded as UTF-8 (JSON text must be)",
			map[string]any{"field": field, "constraint": "utf8"})
	}
	return fault.New(fault.Invalid, fmt.Sprintf("%s nests deeper than %d levels of objects and arrays", field, d.Limit),
		map[string]any{"field": field, "constraint": "max_depth", "limit": d.Limit})
}

func jsonError(raw []byte, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := indexedField(raw, te.Field, te.Value)
		if field == "" {
			field = "(body)"
		}
		return fault.Field(field, "type", "%s must be %s, not %s", field, jsonKind(te.Type.String()), te.Value)
	case errors.As(err, &se):
		return fault.New(fault.Invalid, fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, se.Error()),
			map[string]any{"constraint": "json", "offset": se.Offset})
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fault.New(fault.Invalid, "malformed JSON: unexpected end of body", map[string]any{"constraint": "json"})
	}
	return fault.New(fault.Invalid, "malformed JSON: "+err.Error(), map[string]any{"constraint": "json"})
}

// jsonKind names a Go type the way a JSON author thinks of it.
func jsonKind(goType string) string {
	switch {
	case goType == "string" || strings.HasSuffix(goType, "*string"):
		return "a string"
	case strings.HasPrefix(goType, "[]") || strings.HasPrefix(goType, "*[]"):
		return "an array"
	case strings.Contains(goType, "int") || strings.Contains(goType, "float"):
		return "a number"
	case goType == "bool" || goType == "*bool":
		return "a boolean"
	case strings.HasPrefix(goType, "map[") || strings.Contains(goType, "."):
		return "an object"
	}
	return "of type " + goType
}

// indexedField turns the decoder's dotted field ("blocks.type", no array indexes)
// into the path of the first value in raw that it names and that has the refused
// JSON kind ("blocks[3].type"), so a person can find it in a body of 500 blocks.
// It gives the dotted field back when no such value is found.
func indexedField(raw []byte, field, kind string) string {
	if field == "" {
		return ""
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return field
	}
	kind, _, _ = strings.Cut(kind, " ") // "number 1e999" -> "number"
	if p, ok := findKind(tree, strings.Split(field, "."), kind, ""); ok {
		return p
	}
	return field
}

func findKind(v any, rest []string, kind, path string) (string, bool) {
	if len(rest) == 0 && valueKind(v) == kind {
		return path, true
	}
	if arr, ok := v.([]any); ok {
		for i, el := range arr {
			if p, ok := findKind(el, rest, kind, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, true
			}
		}
		return "", false
	}
	if len(rest) == 0 {
		return "", false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	child, ok := obj[rest[0]]
	if !ok {
		return "", false
	}
	if path != "" {
		path += "."
	}
	return findKind(child, rest[1:], kind, path+rest[0])
}

// valueKind names a decoded JSON value as encoding/json's type errors do.
func valueKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
