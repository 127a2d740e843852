package blocks

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemaID)
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

// validList validates a one-block list against the schema.
func validList(t *testing.T, s *jsonschema.Schema, block string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte("[" + block + "]")))
	if err != nil {
		t.Fatalf("bad test block %s: %v", block, err)
	}
	return s.Validate(v)
}

func TestSchemaShape(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] != schemaID {
		t.Errorf("$schema %v, $id %v", doc["$schema"], doc["$id"])
	}
	defs, _ := doc["$defs"].(map[string]any)
	for _, name := range append(Types(), "Block", "tree_node") {
		if _, ok := defs[name]; !ok {
			t.Errorf("$defs has no %q", name)
		}
	}
	block, _ := defs["Block"].(map[string]any)
	props, _ := block["properties"].(map[string]any)
	for _, p := range []string{"type", "data", "id", "group", "tab"} {
		if _, ok := props[p]; !ok {
			t.Errorf("Block has no property %q", p)
		}
	}
	if !bytes.Equal(Schema(), Schema()) {
		t.Error("Schema is not deterministic")
	}
}

func TestWellFormedBlocksMatchSchema(t *testing.T) {
	s := compileSchema(t)
	for _, name := range Types() {
		if err := validList(t, s, wellFormed[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, b := range alsoWellFormed {
		if err := validList(t, s, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// TestSchemaAgreesOnMistakes keeps validation and schema from drifting: every
// mistake that is about shape (not a cross-field rule) must also fail the
// schema, and every rule-only mistake must pass it.
func TestSchemaAgreesOnMistakes(t *testing.T) {
	s := compileSchema(t)
	for _, cases := range mistakes {
		for _, m := range cases {
			err := validList(t, s, m.block)
			if m.rule && err != nil {
				t.Errorf("rule-only mistake fails the schema: %s: %v", m.block, err)
			}
			if !m.rule && err == nil {
				t.Errorf("schema accepts a shape mistake: %s (warned at %s)", m.block, m.path)
			}
		}
	}
}
