package blocks

// kind is the JSON shape a field's value must have.
type kind uint8

const (
	kString   kind = iota + 1 // a JSON string; with field.enum, one of those strings
	kScalar                   // a displayed value: string, number or boolean
	kNumber                   // a JSON number
	kInteger                  // a JSON number without a fractional part, >= field.min
	kBool                     // true or false
	kTime                     // a timestamp string formats.Timestamp accepts (timePattern)
	kURL                      // an http(s) or relative URL string (urlPattern)
	kImageURL                 // a kURL whose data: addresses draw their own warning (imageURLPattern)
	kSize                     // a CSS-like size: a string ("50%", "1/2") or a number
	kAny                      // any JSON value
	kObject                   // an object described by field.obj
	kArray                    // an array whose elements are described by field.elem
	kMap                      // an object with free keys whose values are field.elem
	kBlocks                   // an array of nested blocks
	kPoint                    // a chart value: a number, an {x, y} object or an [x, y] pair
)

// kindInfo is everything about a kind that does not depend on the field. Its
// JSON types are both what the Go shape check accepts (shapeOK) and the schema's
// "type" keyword, so the two cannot drift.
type kindInfo struct {
	types  []string // JSON Schema type names; nil means any (kAny) or special (kPoint)
	expect string   // for "expected ..."
	send   string   // for "send ..."
	plural string   // for "an array of ..."
}

var kinds = map[kind]kindInfo{
	kString:   {[]string{"string"}, "a string", "a JSON string", "strings"},
	kScalar:   {[]string{"string", "number", "boolean"}, "a string, number or boolean", "a string, number or boolean", "strings or numbers"},
	kNumber:   {[]string{"number"}, "a number", "a JSON number", "numbers"},
	kInteger:  {[]string{"integer"}, "a whole number", "a whole JSON number", "whole numbers"},
	kBool:     {[]string{"boolean"}, "a boolean", "true or false", "booleans"},
	kTime:     {[]string{"string"}, "an ISO 8601 timestamp string", "an ISO 8601 timestamp such as " + timeExample, "timestamps"},
	kURL:      {[]string{"string"}, "a URL string", "an http(s) or relative URL", "URLs"},
	kImageURL: {[]string{"string"}, "a URL string", "an http(s) or relative URL", "URLs"},
	kSize:     {[]string{"string", "number"}, "a size (string or number)", `a size such as "50%" or 300`, "sizes"},
	kAny:      {nil, "a value", "a JSON value", "values"},
	kObject:   {[]string{"object"}, "an object", "an object", "objects"},
	kArray:    {[]string{"array"}, "an array", "an array", "arrays"},
	kMap:      {[]string{"object"}, "an object", "an object keyed by column key", "objects keyed by column key"},
	kBlocks:   {[]string{"array"}, "an array of blocks", `an array of blocks {"type": ..., "data": {...}}`, "blocks"},
	kPoint:    {nil, "a number", "a JSON number", "numbers"},
}

// field describes one named member of a data object, or (with an empty name)
// the element of an array or map.
type field struct {
	name     string
	kind     kind
	required bool     // absent or null draws a "missing" warning
	nullable bool     // null is a valid element (arrays and maps; optional members are always nullable)
	enum     []string // kString: the allowed values, compared exactly
	min      float64  // kInteger: the smallest allowed value
	elem     *field   // kArray, kMap: the element
	obj      *object  // kObject: the members
	hint     string   // appended to the "missing" warning
	old      bool     // a deprecated name, accepted but never suggested
}

// object describes a JSON object: its known members and the rules that span
// several of them. Members it does not list are accepted silently.
type object struct {
	name      string   // $defs name when shared or recursive; "" when inlined
	fields    []field  // the known members, in the order they are checked
	anyOf     []string // when set, at least one of these members must be present
	normalize func(c *checker, p string, m map[string]any)
	check     func(c *checker, p string, m map[string]any) // cross-field rules, run after the members
}

// blockType is one entry of the block catalog.
type blockType struct {
	name  string
	doc   string
	data  *object
	nests bool // some member, at any depth, holds nested blocks
}

// The constructors below keep the catalog table short and readable.

func str(name string) field       { return field{name: name, kind: kString} }
func scalar(name string) field    { return field{name: name, kind: kScalar} }
func number(name string) field    { return field{name: name, kind: kNumber} }
func boolean(name string) field   { return field{name: name, kind: kBool} }
func timestamp(name string) field { return field{name: name, kind: kTime} }
func link(name string) field      { return field{name: name, kind: kURL} }
func imageURL(name string) field  { return field{name: name, kind: kImageURL} }
func size(name string) field      { return field{name: name, kind: kSize} }
func anyValue(name string) field  { return field{name: name, kind: kAny} }
func blockList(name string) field {
	return field{name: name, kind: kBlocks}
}

func integer(name string, min float64) field {
	return field{name: name, kind: kInteger, min: min}
}

func enum(name string, values ...string) field {
	return field{name: name, kind: kString, enum: values}
}

// arrayOf is an array whose elements are described by elem (its name is dropped).
func arrayOf(name string, elem field) field {
	elem.name, elem.required = "", false
	return field{name: name, kind: kArray, elem: &elem}
}

// numbers is a series of numbers in which null marks a gap.
func numbers(name string) field {
	return arrayOf(name, field{kind: kNumber, nullable: true})
}

// labels is an array of display labels; numbers are accepted as labels.
func labels(name string) field { return arrayOf(name, scalar("")) }

// objectOf is an inline object with the given members.
func objectOf(name string, fields ...field) field {
	return field{name: name, kind: kObject, obj: &object{fields: fields}}
}

// listOf is an array of inline objects with the given members.
func listOf(name string, fields ...field) field {
	return arrayOf(name, objectOf("", fields...))
}

// ref is a member holding the named (possibly recursive) object o.
func ref(name string, o *object) field { return field{name: name, kind: kObject, obj: o} }

func req(f field) field { f.required = true; return f }

func withHint(f field, hint string) field { f.hint = hint; return f }

func deprecated(f field) field { f.old = true; return f }
