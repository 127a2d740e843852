package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestTheRulesOfTheHouse checks the import rules of docs/design.md with go list:
// arrows point down (cmd -> transport -> actors -> persistence); nothing under
// persistence imports actors or transport; nothing under actors imports transport;
// the pure packages (actors/model/..., transport/protocols, transport/web/render and
// transport/web/chart) import no actor package, no storage and no HTTP server or
// client; the pages for people (transport/web) do not import the API
// (transport/httpapi).
func TestTheRulesOfTheHouse(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range p.Imports {
			if why := forbidden(p.ImportPath, imp); why != "" {
				t.Errorf("%s imports %s: %s", p.ImportPath, imp, why)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages listed", checked)
	}
}

func forbidden(pkg, imp string) string {
	under := func(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
	pure := under(pkg, "folio/actors/model") || pkg == "folio/transport/protocols" ||
		under(pkg, "folio/transport/web/render") || under(pkg, "folio/transport/web/chart")
	switch {
	case under(imp, "folio/cmd"):
		return "nothing imports the binary"
	case under(pkg, "folio/persistence") && (under(imp, "folio/actors") || under(imp, "folio/transport")):
		return "persistence is below the actors and the transports"
	case under(pkg, "folio/actors") && under(imp, "folio/transport"):
		return "actors are below the transports"
	case under(pkg, "folio/transport/web") && under(imp, "folio/transport/httpapi"):
		return "the two HTTP faces are siblings: the pages share the API's rules below the transports and its credential in transport/credential"
	case under(pkg, "folio/actors/model") && under(imp, "folio/actors") && !under(imp, "folio/actors/model"):
		return "the model is pure: it imports no actor"
	case pure && (under(imp, "folio/actors") && !under(imp, "folio/actors/model") || under(imp, "folio/persistence") ||
		imp == "net/http" || under(imp, "github.com/asynkron") || imp == "go.etcd.io/bbolt"):
		return "a pure package imports no actor, storage or HTTP package"
	}
	return ""
}
