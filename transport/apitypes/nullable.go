package apitypes

import (
	"encoding/json"
	"time"
)

// NullTime is a time that is null on the wire when zero; null reads as zero. The
// server never holds a zero time it means to send, so zero and null are one value.
type NullTime struct{ time.Time }

// TimeOf is *t as a NullTime (nil: null).
func TimeOf(t *time.Time) NullTime {
	if t == nil {
		return NullTime{}
	}
	return NullTime{*t}
}

// MarshalJSON writes null for the zero time, else the time as time.Time does.
func (t NullTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return t.Time.MarshalJSON()
}

// UnmarshalJSON reads null as the zero time.
func (t *NullTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	return t.Time.UnmarshalJSON(b)
}

// NullString is a string that is null on the wire when empty; null reads as "".
// It is for members whose empty value means "none" (a decision not yet taken); a
// member that may be "" and differs from null is a *string.
type NullString string

// MarshalJSON writes null for "", else the string.
func (s NullString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// UnmarshalJSON reads null as "".
func (s *NullString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var v string
	err := json.Unmarshal(b, &v)
	*s = NullString(v)
	return err
}
