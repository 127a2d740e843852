package tenant

import (
	"strings"
	"unicode/utf8"

	"folio/actors/model/fault"
)

// CheckNewKey applies the rules of a new API key (POST /v1/account/api-keys and
// the dashboard's form alike) to its name and mode: the name trimmed, 1–100
// characters; the mode live (also when empty) or test. The refusal names its
// field (fault.Field).
func CheckNewKey(name, mode string) (trimmed string, test bool, err error) {
	trimmed = strings.TrimSpace(name)
	switch {
	case trimmed == "":
		return "", false, fault.Field("name", "required", "name is required")
	case utf8.RuneCountInString(trimmed) > 100:
		return "", false, fault.Field("name", "max_length", "name has at most 100 characters")
	case mode != "" && mode != "live" && mode != "test":
		return "", false, fault.Field("mode", "enum", "mode must be live or test")
	}
	return trimmed, mode == "test", nil
}
