package page

import (
	"strings"
	"testing"
)

func TestUnknownTopLevelFieldsAreWarnedWithTheNearestKnownOne(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{"title":"t","actoins":[]}`, []string{"actoins: unknown field, ignored; send actions"}},
		{`{"title":"t","Approval-Chain":{}}`, []string{"Approval-Chain: unknown field, ignored; send approval_chain"}},
		{`{"title":"t","blcoks":[],"expire_at":"x"}`, []string{"blcoks: unknown field, ignored; send blocks", "expire_at: unknown field, ignored; send expires_at"}},
		{`{"title":"t","colour":"red"}`, []string{"colour: unknown field, ignored; send only the page request's fields ("}},
		{`{"title":"t","actions":[],"blocks":[]}`, nil},
		{`[1,2]`, nil},
	}
	for _, c := range cases {
		got := UnknownFieldWarnings([]byte(c.body))
		if len(got) != len(c.want) {
			t.Errorf("%s: %q, want %q", c.body, got, c.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], c.want[i]) {
				t.Errorf("%s: %q, want prefix %q", c.body, got[i], c.want[i])
			}
		}
	}
}

func TestUnknownFieldWarningsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"title":"t"`)
	for i := 0; i < 5000; i++ {
		b.WriteString(`,"x` + strings.Repeat("y", i%100) + string(rune('a'+i%26)) + `` + `":1`)
	}
	b.WriteString(`}`)
	got := UnknownFieldWarnings([]byte(b.String()))
	if len(got) > maxUnknownFieldWarnings+1 || !strings.Contains(got[len(got)-1], "more unknown fields") {
		t.Fatalf("%d warnings, last %q", len(got), got[len(got)-1])
	}
}
