// Command folio runs the Folio server (`folio` or `folio serve`).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
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
	case "mcp":
		err = runMCP(args)
	case "cluster":
		err = runCluster(args, os.Stdout)
	case "help":
		fmt.Println("usage: folio [serve|bench|admin|mcp|cluster] [flags]   (folio serve -h, folio bench -h, folio mcp -h, folio cluster -h list the flags; folio admin help)")
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
