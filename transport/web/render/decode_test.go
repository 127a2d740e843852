package render

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeKeepsWhatIsUsableAfterAMismatch: a block whose data has a member of
// the wrong type still shows the members after it, as encoding/json reads them
// (the fast decoder stops at the mismatch; decode must not keep its half result).
func TestDecodeKeepsWhatIsUsableAfterAMismatch(t *testing.T) {
	type view struct {
		Count int               `json:"count"`
		Title string            `json:"title"`
		Rows  []string          `json:"rows"`
		Tags  map[string]string `json:"tags"`
		Cell  Scalar            `json:"cell"`
	}
	for _, raw := range []string{
		`{"count":"many","title":"Kept","rows":["a",2,"c"],"tags":{"k":"v","n":1},"cell":7}`,
		`{"title":"Kept","tags":{"k":"v"},"count":{"x":1},"rows":["a","b"],"cell":"s"}`,
		`{"title":"Kept","count":3,"rows":["a"],"tags":{},"cell":true}`,
	} {
		var got, want view
		if err := decode(json.RawMessage(raw), &got); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		_ = json.Unmarshal([]byte(raw), &want) // the lenient reading, mismatches skipped
		if !reflect.DeepEqual(got, want) || got.Title != "Kept" {
			t.Errorf("%s:\n got %+v\nwant %+v", raw, got, want)
		}
	}
	var v view
	if decode(json.RawMessage(`{"title":`), &v) == nil {
		t.Error("data that is not JSON decoded without an error")
	}
}
