package blocks

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Readers of decoded JSON (decoded with UseNumber, so numbers are
// json.Number and keep the digits the agent sent). They never panic: a value
// of another shape reads as absent.

// jsonType is the JSON Schema type name of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// isPoint reports whether v is an {x, y} object or an [x, y] pair of numbers.
func isPoint(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		_, x := v["x"].(json.Number)
		_, y := v["y"].(json.Number)
		return x && y
	case []any:
		if len(v) != 2 {
			return false
		}
		_, x := v[0].(json.Number)
		_, y := v[1].(json.Number)
		return x && y
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// asNumber reads a decoded JSON number. Numbers beyond float64 range read as
// ±Inf (they are still numbers); anything else reports false.
func asNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// present reports whether key holds a non-null value; null counts as absent.
func present(m map[string]any, key string) bool {
	return m[key] != nil
}

// scalarKey is the text form of a scalar, used to compare option values.
func scalarKey(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return string(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// numText is a sent number as the agent wrote it.
func numText(v any) string {
	n, _ := v.(json.Number)
	return clip(string(n), maxQuoted)
}
