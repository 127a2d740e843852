package people

import (
	"errors"
	"testing"

	"folio/actors/model/fault"
)

// TestASignInLinkRequestIsCheckedWithoutARequest: the address, the page id and the
// redirect are refused naming the field (no open redirect: another host, //host, a
// backslash); a path or an address on this service's own origins is kept as its
// path, and no redirect leads to the page or the dashboard.
func TestASignInLinkRequestIsCheckedWithoutARequest(t *testing.T) {
	origins := []string{"https://folio.example", "https://app.folio.example"}
	for _, tc := range []struct {
		email, page, redirect string
		field, check          string
	}{
		{"", "", "", "email", "required"},
		{"not an address", "", "", "email", "email"},
		{"a@example.com", string(make([]byte, 65)), "", "pageId", "max_length"},
		{"a@example.com", "", "https://evil.example/p/x", "redirectUrl", "same_origin"},
		{"a@example.com", "", "//evil.example/", "redirectUrl", "same_origin"},
		{"a@example.com", "", "/\\evil.example", "redirectUrl", "same_origin"},
	} {
		_, err := CheckLinkRequest(tc.email, tc.page, tc.redirect, origins...)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Details["field"] != tc.field || fe.Details["constraint"] != tc.check {
			t.Errorf("%q %q %q: %v, want %s %s", tc.email, tc.page, tc.redirect, err, tc.field, tc.check)
		}
	}
	for _, tc := range []struct{ page, redirect, want string }{
		{"", "", "/"},
		{"pg_1", "", "/p/pg_1"},
		{"", "https://app.folio.example/inbox?x=1#top", "/inbox?x=1#top"},
		{"", "/p/pg_2", "/p/pg_2"},
	} {
		req, err := CheckLinkRequest(" A@Example.com ", tc.page, tc.redirect, origins...)
		if err != nil || req.Redirect != tc.want || req.Email != "a@example.com" {
			t.Errorf("%q %q: %+v %v, want %s", tc.page, tc.redirect, req, err, tc.want)
		}
	}
}
