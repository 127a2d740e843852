package blocks

import "fmt"

// Editable blocks. An agent marks a top-level block `editable: true` to let the
// reviewer correct it before approving. What a reviewer may change is the block's
// text, never its shape:
//
//   - text, rich_text, code: content (the whole string);
//   - key_value: the value of each pair (keys, styles and order stay);
//   - table: the cells of the existing rows under the existing columns ("form-like":
//     at most MaxEditableCells cells; rows and columns are neither added nor removed).
//
// Any other type, a key_value or table over MaxEditableCells, or a nested block
// marked editable draws a warning at publish and is stored without the mark.

// MaxEditableCells bounds the inputs one editable key_value (pairs) or table
// (rows × columns) asks the reviewer to fill.
const MaxEditableCells = 200

// editableTypes are the types whose blocks may be marked editable.
var editableTypes = map[string]bool{"text": true, "rich_text": true, "code": true, "key_value": true, "table": true}

// EditableType reports whether blocks of type t may be marked editable.
func EditableType(t string) bool { return editableTypes[t] }

// editableProblem is why b cannot be editable, "" when it can.
func editableProblem(b Block, data any) string {
	if !editableTypes[b.Type] {
		return fmt.Sprintf("a %s block cannot be edited by the reviewer (only text, rich_text, code, key_value and table blocks can); the block is stored without editable", quote(b.Type))
	}
	m := asObject(data)
	switch b.Type {
	case "key_value":
		if n := len(asArray(m["pairs"])); n > MaxEditableCells {
			return fmt.Sprintf("a key_value block with %d pairs is too long to edit (at most %d); the block is stored without editable", n, MaxEditableCells)
		}
	case "table":
		if n := len(asArray(m["rows"])) * len(asArray(m["columns"])); n > MaxEditableCells {
			return fmt.Sprintf("a table of %d cells is too large to edit (at most %d rows × columns); the block is stored without editable", n, MaxEditableCells)
		}
	}
	return ""
}
