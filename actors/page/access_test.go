package page

import "testing"

// TestAllowedIdentitiesMatchAddressesAndDomains pins how allowed_identities admit a
// verified address: an email entry the whole address, a domain entry the part after
// the last @, both without regard to case or surrounding spaces; nothing else.
func TestAllowedIdentitiesMatchAddressesAndDomains(t *testing.T) {
	acc := Access{Mode: "authenticated", AllowedIdentities: []Identity{
		{Type: "email", Value: " Alice@Example.com "},
		{Type: "domain", Value: "corp.test"},
		{Type: "domain", Value: "@Partner.Test"},
	}}
	for _, c := range []struct {
		email string
		want  bool
	}{
		{"alice@example.com", true},
		{"ALICE@EXAMPLE.COM", true},
		{"bob@example.com", false},
		{"alice@example.com.evil.test", false},
		{"bob@corp.test", true},
		{"bob@CORP.test", true},
		{"bob@sub.corp.test", false},
		{"bob@evilcorp.test", false},
		{"x@partner.test", true},
		{"corp.test", false},
		{"@corp.test", false},
		{"", false},
	} {
		if got := acc.Allows(c.email); got != c.want {
			t.Errorf("Allows(%q) = %v, want %v", c.email, got, c.want)
		}
	}
}
