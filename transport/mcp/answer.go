package foliomcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Answer is an API answer as a tool's output: the client's type T (the one
// definition of the answer's shape, shared with the server through
// transport/apitypes), and the account when this call created it.
//
// Its JSON and its schema keep one rule, so that a client validating the output
// against the schema never meets a value the schema refuses: a member the API
// leaves unset (null, or a time the client reads as Go's zero time) is absent,
// never null and never 0001-01-01T00:00:00Z; only such members, which may be
// absent, are left out of the schema's required ones. Open-ended data (block
// data, an event's data) is carried as it is: the rule applies to the members
// the schema declares, never inside data the agent wrote.
type Answer[T any] struct {
	Of      T
	Account *Provisioned
}

// answerOf is the API's answer v as a tool's output.
func answerOf[T any](v *T) (Answer[T], error) { return Answer[T]{Of: *v}, nil }

// inAnswer records a provisioned account in an Answer.
func inAnswer[T any](out *Answer[T], p *Provisioned) { out.Account = p }

// outputSchema is T's schema (schemaOf) with the members that may be absent no
// longer required, and the account member added; add declares it as the tool's.
func (Answer[T]) outputSchema() map[string]any { return answerSchema[T]() }

// answerSchemas caches answerSchema by T: every output is written through it.
var answerSchemas sync.Map // reflect.Type -> map[string]any, read only once stored

func answerSchema[T any]() map[string]any {
	t := reflect.TypeFor[T]()
	if s, ok := answerSchemas.Load(t); ok {
		return s.(map[string]any)
	}
	s := schemaOf[T]()
	mayBeAbsent(s, reflect.TypeFor[T]())
	if props, ok := s["properties"].(map[string]any); ok {
		acct := schemaOf[Provisioned]()
		acct["description"] = "present when this call created your Folio account"
		props["account"] = acct
	}
	answerSchemas.Store(t, s)
	return s
}

// MarshalJSON writes T's members with the unset ones left out (unset), and the
// account when there is one.
func (a Answer[T]) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(a.Of)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	unset(v, answerSchema[T]())
	if m, ok := v.(map[string]any); ok && a.Account != nil {
		m["account"] = a.Account
	}
	return json.Marshal(v)
}

// zeroTime is Go's zero time.Time as encoding/json writes it.
const zeroTime = "0001-01-01T00:00:00Z"

// unset removes, from every object member the schema s declares (at any depth
// of declared objects and arrays), the members that are null or the zero time.
// An object the schema declares no members of (block data, an event's data) is
// left as it is.
func unset(v any, s map[string]any) {
	switch n := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for k, x := range n {
			ps, declared := props[k].(map[string]any)
			if !declared {
				continue
			}
			if x == nil || x == zeroTime {
				delete(n, k)
				continue
			}
			unset(x, ps)
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for _, x := range n {
				unset(x, items)
			}
		}
	}
}

// mayBeAbsent removes from the required members of s (T's schema) those that
// unset may leave out: pointers, slices, maps, interfaces, times and the types
// with their own encoding (NullTime, NullString, Limit, json.RawMessage), at any
// depth.
func mayBeAbsent(s map[string]any, t reflect.Type) {
	members(s, t, func(parent map[string]any, f reflect.StructField, name string, _ map[string]any) {
		if req, ok := parent["required"].([]any); ok && nullable(f.Type) {
			parent["required"] = slices.DeleteFunc(req, func(r any) bool { return r == name })
		}
	})
}

// nullable reports whether a member of type t may be written as null or as the
// zero time.
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return t == reflect.TypeFor[time.Time]() || hasOwnEncoding(t)
}

// hasOwnEncoding reports whether t writes itself (a json.Marshaler).
func hasOwnEncoding(t reflect.Type) bool {
	m := reflect.TypeFor[json.Marshaler]()
	return t.Implements(m) || reflect.PointerTo(t).Implements(m)
}
