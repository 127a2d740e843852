package main

import (
	"strings"
	"testing"

	"folio/transport/node/nodetest/ports"
)

// --pg-later-wait and its twin FOLIO_PG_LATER_WAIT are documented with their
// default, and a wait PostgreSQL's lock_timeout cannot hold (under a millisecond;
// 0 would wait for ever) stops the server with what to give instead.
func TestPGLaterWaitIsAFlagWithItsTwin(t *testing.T) {
	out, _ := runFolio(t, nil, "serve", "-h")
	if !strings.Contains(out, "-pg-later-wait duration") || !strings.Contains(out, "(FOLIO_PG_LATER_WAIT) (default 50ms)") {
		t.Fatalf("serve -h does not document --pg-later-wait:\n%s", out)
	}
	for _, run := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--pg-later-wait", "500us"}, "--pg-later-wait is 500µs: give at least 1ms"},
		{[]string{"FOLIO_PG_LATER_WAIT=0s"}, nil, "--pg-later-wait is 0s: give at least 1ms"},
	} {
		out, err := runFolio(t, run.env, append([]string{"serve", "--addr", ports.Free(t), "--data", t.TempDir()}, run.args...)...)
		if err == nil || !strings.Contains(out, run.want) {
			t.Errorf("%v %v: %v\n%s", run.env, run.args, err, out)
		}
	}
}
