package tenant

import (
	"errors"
	"strings"
	"testing"

	"folio/actors/model/fault"
)

// TestAClaimProofIsCheckedBeforeAnyoneIsAsked: a key's prefix, a code without its
// token and an overlong code or token are refused naming the field and what to
// do; a pasted claimUrl leaves its token; a whole key needs no code.
func TestAClaimProofIsCheckedBeforeAnyoneIsAsked(t *testing.T) {
	whole := "sk_live_" + strings.Repeat("a", 44)
	for _, tc := range []struct {
		p            ClaimProof
		field, check string
	}{
		{ClaimProof{Key: "sk_live_abcd"}, "key", "whole_key"},
		{ClaimProof{Token: "ct_x"}, "claimCode", "required"},
		{ClaimProof{Code: strings.Repeat("C", 65), Token: "ct_x"}, "claimCode", "max_length"},
		{ClaimProof{Code: "ABC-1234"}, "claimToken", "required"},
		{ClaimProof{Code: "ABC-1234", Token: strings.Repeat("t", 129)}, "claimToken", "max_length"},
	} {
		_, err := tc.p.Checked()
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.Invalid || fe.Details["field"] != tc.field || fe.Details["constraint"] != tc.check {
			t.Errorf("%+v: %v, want %s %s", tc.p, err, tc.field, tc.check)
		}
	}
	p, err := ClaimProof{Code: " ABC-1234 ", Token: "https://folio.example/claim#ct_abc"}.Checked()
	if err != nil || p.Code != "ABC-1234" || p.Token != "ct_abc" || p.Kind() != "code" {
		t.Errorf("a pasted claimUrl: %+v %v", p, err)
	}
	if p, err := (ClaimProof{Key: " " + whole + " "}).Checked(); err != nil || p.Key != whole || p.Kind() != "key" {
		t.Errorf("a whole key: %+v %v", p, err)
	}
}
