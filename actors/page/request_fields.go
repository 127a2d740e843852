package page

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// requestFields are the top-level names a page request knows (its JSON tags).
var requestFields = func() []string {
	var names []string
	t := reflect.TypeOf(Request{})
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}()

// maxUnknownFieldWarnings bounds the warnings one body can cause, whatever it holds.
const maxUnknownFieldWarnings = 20

// UnknownFieldWarnings names the top-level fields of a page request body that Folio
// does not know. They stay ignored (forward compatibility), but a typo such as
// "actoins" would otherwise publish a page without its buttons and say nothing, so
// each one is a warning, with the known field it is closest to when there is one.
// A body that is not a JSON object yields none: decoding reports that.
func UnknownFieldWarnings(raw []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	var unknown []string
	for k := range top {
		if !knownField(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	var out []string
	for i, k := range unknown {
		if i == maxUnknownFieldWarnings {
			out = append(out, fmt.Sprintf("(body): %d more unknown fields, ignored", len(unknown)-i))
			break
		}
		name := k
		if len(name) > 64 {
			name = name[:64] + "…"
		}
		if near := nearestField(k); near != "" {
			out = append(out, fmt.Sprintf("%s: unknown field, ignored; send %s", name, near))
		} else {
			out = append(out, fmt.Sprintf("%s: unknown field, ignored; send only the page request's fields (%s)", name, strings.Join(requestFields, ", ")))
		}
	}
	return out
}

func knownField(k string) bool {
	for _, f := range requestFields {
		if f == k {
			return true
		}
	}
	return false
}

// nearestField is the known field within two edits of k (case and - / _ aside).
func nearestField(k string) string {
	if len(k) > 64 {
		return ""
	}
	norm := strings.ReplaceAll(strings.ToLower(k), "-", "_")
	best, bestD := "", 3
	for _, f := range requestFields {
		if d := editDistance(norm, f); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance (a swap of two neighbours
// counts once, as in "actoins"); both strings are at most 64 bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
