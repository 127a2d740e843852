package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"

	fastjson "github.com/segmentio/encoding/json"
)

// decode reads a block's data into v leniently: a member whose JSON type does not
// match its Go field is skipped (encoding/json carries on and reports only the first
// such mismatch, which is dropped here), so a block whose data drew warnings at
// publish still renders what is usable. Only data that is not JSON at all fails.
func decode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	// segmentio's decoder is faster than encoding/json (a block's data is decoded
	// on every cold draw) but stops at the first mismatch: data it refuses is
	// decoded again from zero by encoding/json, whose lenient result is the one
	// that counts.
	if fastjson.Unmarshal(raw, v) == nil {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// Scalar is a displayed value that agents send as a string, number or boolean (the
// catalog's "display value"). Anything else (objects, arrays, null) reads as empty.
type Scalar string

// UnmarshalJSON keeps strings as they are and numbers and booleans as written.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		*s = Scalar(str)
	case 't', 'f':
		*s = Scalar(b)
	case 'n', '{', '[':
		*s = ""
	default:
		*s = Scalar(b) // a number, exactly as the agent wrote it
	}
	return nil
}

// String is the value as text.
func (s Scalar) String() string { return string(s) }

// Number is a numeric value that may also arrive as a numeric string ("42.5"). OK
// is false when the value was absent or not a number.
type Number struct {
	V  float64
	OK bool
}

// UnmarshalJSON accepts a JSON number or a string holding one.
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = []byte(s)
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		*n = Number{}
		return nil
	}
	*n = Number{V: f, OK: true}
	return nil
}
