package blocks

import "strconv"

// Paths name a value the way a caller writes it in JavaScript or jq:
// blocks[3].data.rows[2].cpu. A key that is not a plain identifier is quoted
// in brackets (rows[2]["cpu %"]), and a very long key is cut, so a path is
// always one readable line whatever the agent sent.

const maxKey = 64

// join is the path of member key of the object at p.
func join(p, key string) string {
	if isIdent(key) {
		if p == "" {
			return key
		}
		return p + "." + key
	}
	return p + "[" + strconv.Quote(clip(key, maxKey)) + "]"
}

// index is the path of element i of the array at p.
func index(p string, i int) string {
	return p + "[" + strconv.Itoa(i) + "]"
}

func isIdent(s string) bool {
	if s == "" || len(s) > maxKey {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}
