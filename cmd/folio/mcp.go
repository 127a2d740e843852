package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/mcp"
	"folio/transport/node"
)

// runMCP is `folio mcp`: the MCP server over stdio, for an MCP client that starts
// it as a subprocess. It talks to the Folio server at --target with --key; without
// --target it starts an embedded server on --data (nothing to set up). Without a
// key the first tool call creates an agent account, and the key is kept (0600) in
// the user's config directory for the next run.
func runMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	target := fs.String("target", env("FOLIO_TARGET", ""), "the Folio server's URL (FOLIO_TARGET); empty: an embedded server on --data")
	key := fs.String("key", env("FOLIO_API_KEY", ""), "API key (FOLIO_API_KEY); empty: the stored one, else a new account on the first tool call")
	data := fs.String("data", env("FOLIO_DATA", "./data"), "data directory of the embedded server (FOLIO_DATA)")
	keyDir := fs.String("key-dir", env("FOLIO_MCP_KEY_DIR", ""), "where a provisioned key is kept (FOLIO_MCP_KEY_DIR; default: <user config dir>/folio)")
	wait := fs.Duration("wait", envDuration("FOLIO_MCP_WAIT", foliomcp.DefaultDecisionWait), "one request_approval or wait_for_decision call waits at most this long, then answers status pending (the agent calls wait_for_decision again); keep it below the MCP client's request timeout, 60s by default in the official TypeScript SDK (FOLIO_MCP_WAIT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, server := *target, ""
	if base == "" {
		abs, err := filepath.Abs(*data)
		if err != nil {
			return err
		}
		// The page addresses the tools hand out name the port, so it is chosen
		// before the node opens (a node derives its addresses when it opens).
		addr, err := freeLoopback()
		if err != nil {
			return err
		}
		n, err := node.Open(node.Config{DataDir: abs, Addr: addr, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			return fmt.Errorf("start the embedded server on %s: %w", abs, err)
		}
		defer func() { _ = n.Close(context.Background()) }()
		if addr, err = n.Listen(); err != nil {
			return err
		}
		base, server = "http://"+addr, "embedded:"+abs
	} else {
		server = base
	}
	dir := *keyDir
	if dir == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("no config directory for the provisioned key (set --key-dir): %w", err)
		}
		dir = filepath.Join(cfg, "folio")
	}
	s := foliomcp.NewServer(foliomcp.Options{BaseURL: base, Key: *key, Keys: foliomcp.FileKeys{Dir: dir, Server: server}, DecisionWait: *wait})
	return s.Run(ctx, &mcp.StdioTransport{})
}

// freeLoopback is a loopback address with a port free a moment ago.
func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
