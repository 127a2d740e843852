package apitypes

import (
	"encoding/json"
	"strconv"
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

// Limit is a quota on the wire: null when unlimited (0 or less), else the number;
// null reads as 0 (unlimited).
type Limit int64

// MarshalJSON writes null for an unlimited quota, else the number.
func (l Limit) MarshalJSON() ([]byte, error) {
	if l <= 0 {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(l), 10), nil
}

// UnmarshalJSON reads null as 0 (unlimited).
func (l *Limit) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = 0
		return nil
	}
	var n int64
	err := json.Unmarshal(b, &n)
	*l = Limit(n)
	return err
}
