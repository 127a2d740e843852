// Command folio runs the Folio server (`folio` or `folio serve`).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// usage is what `folio --help` and `folio help` print: the commands, then where
// each one's flags are listed.
const usage = `usage: folio [command] [flags]

commands:
  serve     the server (the default: plain "folio" serves); bbolt under --data, or --store postgres://…
  mcp       an MCP server over stdio for one agent, against --target or an embedded server
  cluster   a local cluster to try: PostgreSQL and --nodes N servers sharing it
  bench     the load harness (scenarios, correctness checks, a report)
  audit     check an audit export against signed checkpoints, offline (folio audit help)
  admin     operator commands on a stopped server's data or a running server (folio admin help)
  help      this text

folio COMMAND -h lists a command's flags; every flag has a FOLIO_… environment twin.
`

func main() {
	args := os.Args[1:]
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		// Plain `folio` serves, so its help is the commands, then serve's flags.
		fmt.Print(usage, "\nflags of serve:\n")
		_ = serve([]string{"-h"})
		return
	}
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = serve(args)
	case "bench":
		err = runBench(args)
	case "admin":
		err = runAdmin(args, os.Stdout)
	case "audit":
		err = runAudit(args, os.Stdout)
	case "mcp":
		err = runMCP(args)
	case "cluster":
		err = runCluster(args, os.Stdout)
	case "help":
		fmt.Print(usage)
	default:
		err = fmt.Errorf("unknown command %q (try: folio serve)", cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		return // -h / --help: the usage was printed; asking for it is not a failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}
