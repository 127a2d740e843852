package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"folio/transport/node/nodetest/ports"
)

// TestTheREADMEWalkThroughRuns extracts the README's walk-through and runs it, as
// written, with bash against the real binary, so the document cannot drift from
// the server: every step's answer is checked for what its comment promises.
func TestTheREADMEWalkThroughRuns(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the README walk-through (make deps installs it)", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## Walk-through")
	if ok {
		_, rest, ok = strings.Cut(rest, "```sh\n")
	}
	script, _, found := strings.Cut(rest, "```")
	if !ok || !found {
		t.Fatal("README has no walk-through block")
	}
	p := start(t, t.TempDir(), ports.Free(t))
	lines := strings.Split(script, "\n")
	if !strings.HasPrefix(lines[0], "B=") {
		t.Fatalf("the walk-through should start by setting B: %q", lines[0])
	}
	lines[0] = "B=" + p.base
	cmd := exec.Command("bash", "-eo", "pipefail", "-c", strings.Join(lines, "\n"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The last step follows the stream until curl's --max-time (exit status 28).
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 28 {
		t.Fatalf("the walk-through failed: %v\n%s", err, out.String())
	}
	got := out.String()
	// Step 1 keeps the claim address for the human: the claim page with the code,
	// and the claim token after # (never sent to a server).
	if !regexp.MustCompile(`claim at: http://\S+/claim\?code=[A-Z0-9]+-[A-Z0-9]{4}#ct_\S{43}\n`).MatchString(got) {
		t.Errorf("the walk-through's step 1 does not print the claim address:\n%s", got)
	}
	for _, want := range []string{
		`"filename":"notes.txt"`, `"mimeType":"text/plain"`, `"sizeBytes":6`, // step 3
		`"status":"executed"`, `"current":"completed"`, // step 4
		`"code":"CONFLICT"`,                                 // step 5
		`"total":5`, `"status":"valid"`, `"chain_length":5`, // step 6
		`"type":"file.uploaded"`, `"type":"page.completed"`, // step 7
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the walk-through's output lacks %s:\n%s", want, got)
		}
	}
}
