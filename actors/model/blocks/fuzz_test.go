package blocks

import (
	"encoding/json"
	"testing"
)

// FuzzPrepare decodes arbitrary bytes as a block list and checks that
// Prepare, Depth and Count never panic and keep their invariants.
func FuzzPrepare(f *testing.F) {
	for _, s := range wellFormed {
		f.Add([]byte("[" + s + "]"))
	}
	for _, cases := range mistakes {
		f.Add([]byte("[" + cases[0].block + "]"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var bs []Block
		if json.Unmarshal(data, &bs) != nil {
			return
		}
		out, warnings := Prepare("blocks", bs)
		if len(out) != len(bs) {
			t.Fatalf("Prepare returned %d blocks for %d", len(out), len(bs))
		}
		if len(warnings) > maxWarnings+1 {
			t.Fatalf("%d warnings, cap is %d", len(warnings), maxWarnings)
		}
		for i, b := range out {
			if b.ID != bs[i].ID || b.Type != bs[i].Type || b.Group != bs[i].Group || b.Tab != bs[i].Tab {
				t.Fatalf("block %d head changed", i)
			}
			if len(b.Data) > 0 && !json.Valid(b.Data) {
				t.Fatalf("block %d data is not JSON: %s", i, b.Data)
			}
			if d := Depth(b); d < 1 || d > MaxDepth {
				t.Fatalf("Depth = %d", d)
			}
			_ = Warnings("blocks[0]", b)
		}
		if n := Count(bs); n < len(bs) {
			t.Fatalf("Count = %d < %d blocks", n, len(bs))
		}
		// Prepare is idempotent: its output draws no new normalisation.
		again, _ := Prepare("blocks", out)
		for i := range again {
			if string(again[i].Data) != string(out[i].Data) {
				t.Fatalf("second Prepare changed block %d:\n%s\n%s", i, out[i].Data, again[i].Data)
			}
		}
	})
}

// FuzzBlockData aims the fuzzer at the data of one catalog type at a time;
// data need not be JSON at all.
func FuzzBlockData(f *testing.F) {
	types := Types()
	for i, name := range types {
		b := mustBlock(f, wellFormed[name])
		f.Add(uint8(i), []byte(b.Data))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		b := Block{Type: types[int(which)%len(types)], Data: data}
		out, warnings := PrepareBlock("blocks[0]", b)
		if len(warnings) > maxWarnings+1 {
			t.Fatalf("%d warnings", len(warnings))
		}
		if json.Valid(data) && !json.Valid(out.Data) {
			t.Fatalf("data became invalid JSON: %s", out.Data)
		}
		if d := Depth(b); d < 1 || d > MaxDepth {
			t.Fatalf("Depth = %d", d)
		}
		if Count([]Block{b}) < 1 {
			t.Fatal("Count < 1")
		}
	})
}
