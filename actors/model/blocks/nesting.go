package blocks

// Nesting: which blocks hold other blocks is read from the catalog (members of
// kind kBlocks), so Depth, Count and validation agree on what is nested.
// Every element of a nested block list counts as a block, even a malformed one.

// MaxDepth caps the nesting Depth measures; deeper blocks are not visited.
const MaxDepth = 64

// Depth is the nesting depth of b: 1 for a block holding no blocks, 2 for a
// layout holding a text block, and so on, at most MaxDepth.
func Depth(b Block) int {
	return depthOf(b.Type, decodeLoose(b.Data), 1)
}

// Count is the number of blocks in bs, nested blocks included (down to MaxDepth).
func Count(bs []Block) int {
	n := 0
	for _, b := range bs {
		n += countOf(b.Type, decodeLoose(b.Data), 1)
	}
	return n
}

// depthOf is the level of the deepest block under a block of type t with data
// data at the given level.
func depthOf(t string, data any, level int) int {
	deepest := level
	if level >= MaxDepth {
		return MaxDepth
	}
	children(t, data, func(child any) {
		ct, cd := blockParts(child)
		deepest = max(deepest, depthOf(ct, cd, level+1))
	})
	return deepest
}

func countOf(t string, data any, level int) int {
	n := 1
	if level >= MaxDepth {
		return n
	}
	children(t, data, func(child any) {
		ct, cd := blockParts(child)
		n += countOf(ct, cd, level+1)
	})
	return n
}

func blockParts(v any) (string, any) {
	m := asObject(v)
	t, _ := m["type"].(string)
	return t, m["data"]
}

// children calls fn with every element of every nested block list in data.
func children(t string, data any, fn func(any)) {
	bt := byName[t]
	if bt == nil || !bt.nests {
		return
	}
	if m := asObject(data); m != nil {
		walkBlocks(bt.data, m, fn)
	}
}

func walkBlocks(o *object, m map[string]any, fn func(any)) {
	for i := range o.fields {
		walkField(&o.fields[i], m[o.fields[i].name], fn)
	}
}

func walkField(f *field, v any, fn func(any)) {
	switch f.kind {
	case kBlocks:
		for _, b := range asArray(v) {
			fn(b)
		}
	case kObject:
		if m := asObject(v); m != nil {
			walkBlocks(f.obj, m, fn)
		}
	case kArray:
		if f.elem.kind == kObject || f.elem.kind == kArray || f.elem.kind == kBlocks {
			for _, e := range asArray(v) {
				walkField(f.elem, e, fn)
			}
		}
	}
}

// decodeLoose decodes data, or returns nil when it is absent or not JSON.
func decodeLoose(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := decode(raw)
	if err != nil {
		return nil
	}
	return v
}
