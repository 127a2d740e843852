package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"folio/actors/inbox"
	"folio/actors/model/audit"
	"folio/actors/model/blocks"
	"folio/actors/model/templates"
	"folio/transport/apitypes"
	"folio/transport/client"
)

// serverShapes pairs each answer the server writes from its own records (the
// stored page, the stored events) with the client type that is the one
// definition of its shape.
var serverShapes = []struct {
	server, client any
}{
	{pageView{}, client.Page{}},
	{updatedPage{}, client.UpdatedPage{}},
	{apitypes.PageList[pageView]{}, client.PageList{}},
	{waitOutcome{}, client.Outcome{}},
	{apitypes.EventList[json.RawMessage]{}, client.EventList{}},
	{apitypes.CommentList[commentView]{}, client.CommentList{}},
	{apitypes.FileList[fileListItem]{}, client.FileList{}},
	{apitypes.AuditList[audit.Entry]{}, client.AuditList{}},
	{apitypes.TemplateList[*templates.Template]{}, client.TemplateList{}},
	{apitypes.BlockFixed[*blocks.Block]{}, client.BlockFixed{}},
	{apitypes.DeliveryList[deliveryView]{}, client.DeliveryList{}},
	{approvalStatus{}, client.ApprovalStatus{}},
	{apitypes.Dashboard[inbox.Metrics]{}, client.Dashboard{}},
}

// TestTheServerWritesTheClientsShapes: where the server writes an answer with
// types of its own (its records' encodings must stay as they are), every JSON
// member it writes is one the client reads, and the other way round, down through
// the nested objects both sides declare as structs.
func TestTheServerWritesTheClientsShapes(t *testing.T) {
	for _, p := range serverShapes {
		name, _, _ := strings.Cut(reflect.TypeOf(p.client).Name(), "[") // PageList, not PageList[folio/…]
		sameMembers(t, reflect.TypeOf(p.server), reflect.TypeOf(p.client), name)
	}
}

// sameMembers reports the members one of server and client declares and the other
// lacks, and compares the members that are objects on both sides.
func sameMembers(t *testing.T, server, client reflect.Type, path string) {
	t.Helper()
	sm, cm := jsonMembers(server), jsonMembers(client)
	for name, st := range sm {
		ct, ok := cm[name]
		if !ok {
			t.Errorf("%s.%s: the server writes it, the client (%s) has no field for it", path, name, client)
			continue
		}
		if s, c := structOf(st), structOf(ct); s != nil && c != nil {
			sameMembers(t, s, c, path+"."+name)
		}
	}
	for name := range cm {
		if _, ok := sm[name]; !ok {
			t.Errorf("%s.%s: the client (%s) reads it, the server (%s) never writes it", path, name, client, server)
		}
	}
}

// jsonMembers are the JSON members of a struct type, embedded structs flattened.
func jsonMembers(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for n, ft := range jsonMembers(f.Type) {
				out[n] = ft
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// structOf is the struct a member holds (through pointers and slices), or nil
// for a scalar, a time, raw JSON or a type with its own encoding.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	marshaler := reflect.TypeFor[json.Marshaler]()
	if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return nil
	}
	return t
}
