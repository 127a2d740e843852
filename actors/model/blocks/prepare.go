package blocks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Prepare checks a list of blocks whose JSON path is path (e.g. "blocks") and
// returns the blocks to store with advisory warnings. Validation never rejects:
// every block is returned as sent, except that a callout's message (at any
// nesting depth) moves to content. Warnings name the path, the problem and
// the fix. Block ids must be unique across the list, nested blocks included.
func Prepare(path string, bs []Block) ([]Block, []string) {
	if bs == nil {
		return nil, nil
	}
	c := newChecker()
	out := make([]Block, len(bs))
	for i, b := range bs {
		out[i] = c.prepare(index(path, i), b)
	}
	return out, c.result(path)
}

// PrepareBlock is Prepare for one block at path (e.g. "blocks[4]").
func PrepareBlock(path string, b Block) (Block, []string) {
	c := newChecker()
	b = c.prepare(path, b)
	return b, c.result(path)
}

// Warnings returns the warnings for one block at path (e.g. "blocks[4]"),
// by the same rules as Prepare.
func Warnings(path string, b Block) []string {
	_, w := PrepareBlock(path, b)
	return w
}

// prepare checks one top-level block and returns it, its data re-encoded only
// when a normalisation changed it.
func (c *checker) prepare(p string, b Block) Block {
	var id any
	if b.ID != "" {
		id = b.ID
	}
	bt := c.blockHead(p, b.Type, id, nil, nil)
	if len(bytes.TrimSpace(b.Data)) == 0 {
		c.data(join(p, "data"), bt, nil, false)
		return c.editable(p, b, nil)
	}
	v, err := decode(b.Data)
	if err != nil {
		if bt != nil {
			c.warn(join(p, "data"), "is not valid JSON; send the %s fields as a JSON object", bt.name)
		}
		return c.editable(p, b, nil)
	}
	b = c.editable(p, b, v)
	c.changed = false
	c.data(join(p, "data"), bt, v, true)
	if c.changed {
		if data, err := encode(v); err == nil {
			b.Data = data
		}
	}
	return b
}

// editable keeps b's editable mark only where editable.go allows it; elsewhere
// the mark draws a warning and is dropped.
func (c *checker) editable(p string, b Block, data any) Block {
	if !b.Editable {
		return b
	}
	if why := editableProblem(b, data); why != "" {
		c.warn(join(p, "editable"), "%s", why)
		b.Editable = false
	}
	return b
}

// decode reads one JSON value, keeping numbers exact as json.Number.
func decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// encode writes v compactly, without HTML escaping, numbers as they were sent.
func encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
