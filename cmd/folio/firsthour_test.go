package main

// The first things a new user meets on the command line: the help, a mistyped
// environment value, a second server on the same data. Each answer says what to do.

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// runFolio runs the real binary to completion (bounded) and returns what it printed.
func runFolio(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, folioBinary(t), args...)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		out, err := runFolio(t, nil, arg)
		if err != nil {
			t.Fatalf("folio %s: %v\n%s", arg, err, out)
		}
		for _, cmd := range []string{"serve", "mcp", "cluster", "bench", "admin"} {
			if !strings.Contains(out, "\n  "+cmd+" ") {
				t.Errorf("folio %s does not list %q:\n%s", arg, cmd, out)
			}
		}
	}
}

func TestAMistypedEnvironmentValueStopsTheServerWithItsName(t *testing.T) {
	out, err := runFolio(t, []string{"FOLIO_IDLE_AFTER=2x", "FOLIO_ENFORCE_LIMITS=no"},
		"serve", "--addr", ports.Free(t), "--data", t.TempDir())
	if err == nil {
		t.Fatalf("the server started with FOLIO_IDLE_AFTER=2x:\n%s", out)
	}
	for _, want := range []string{`FOLIO_IDLE_AFTER="2x" is not a duration`, `FOLIO_ENFORCE_LIMITS="no" is not true or false`} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, out)
		}
	}
}

func TestASecondServerOnTheSameDataSaysWhy(t *testing.T) {
	dir := t.TempDir()
	start(t, dir, ports.Free(t)) // holds the data directory's lock until the test ends
	out, err := runFolio(t, nil, "serve", "--addr", ports.Free(t), "--data", dir)
	if err == nil {
		t.Fatalf("a second server opened the same data:\n%s", out)
	}
	if !strings.Contains(out, "another folio process is using this data directory") || !strings.Contains(out, "--data DIR") {
		t.Fatalf("the second server's error does not say what to do:\n%s", out)
	}
}
