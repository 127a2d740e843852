package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"folio/transport/server"
)

// env returns the environment twin of a flag, or def.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(env(name, "")); err == nil {
		return d
	}
	return def
}

func envBool(name string, def bool) bool {
	if b, err := strconv.ParseBool(env(name, "")); err == nil {
		return b
	}
	return def
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c server.Config
	fs.StringVar(&c.Addr, "addr", env("FOLIO_ADDR", "127.0.0.1:8080"), "listen address (FOLIO_ADDR)")
	fs.StringVar(&c.DataDir, "data", env("FOLIO_DATA", "./data"), "data directory (FOLIO_DATA)")
	fs.StringVar(&c.BaseURL, "base-url", env("FOLIO_BASE_URL", ""), "public base URL (FOLIO_BASE_URL; default http://<addr>)")
	fs.StringVar(&c.PageBaseURL, "page-base-url", env("FOLIO_PAGE_BASE_URL", ""), "base of pageUrl (FOLIO_PAGE_BASE_URL; default base-url)")
	fs.StringVar(&c.ShortURLBase, "short-url-base", env("FOLIO_SHORT_URL_BASE", ""), "base of shortUrl (FOLIO_SHORT_URL_BASE; default base-url)")
	fs.StringVar(&c.AppURL, "app-url", env("FOLIO_APP_URL", ""), "base of sign-in and claim links (FOLIO_APP_URL; default base-url)")
	fs.StringVar(&c.DefaultPlan, "default-plan", env("FOLIO_DEFAULT_PLAN", "free"), "plan of new tenants: free, pro, enterprise (FOLIO_DEFAULT_PLAN)")
	fs.DurationVar(&c.DefaultTTL, "default-ttl", envDuration("FOLIO_DEFAULT_TTL", 7*24*time.Hour), "default page lifetime (FOLIO_DEFAULT_TTL)")
	fs.BoolVar(&c.AllowPrivateCallbacks, "allow-private-callbacks", envBool("FOLIO_ALLOW_PRIVATE_CALLBACKS", false), "allow callbacks to private and loopback addresses (FOLIO_ALLOW_PRIVATE_CALLBACKS)")
	fs.Int64Var(&c.MaxBody, "max-body", 1<<20, "largest request body in bytes")
	logLevel := fs.String("log-level", env("FOLIO_LOG_LEVEL", "info"), "debug, info, warn, error (FOLIO_LOG_LEVEL)")
	pprofAddr := fs.String("pprof", env("FOLIO_PPROF", ""), "serve net/http/pprof on this loopback address, e.g. 127.0.0.1:6060 (FOLIO_PPROF)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	c.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	node, err := server.Open(c)
	if err != nil {
		return err
	}
	addr, err := node.Listen()
	if err != nil {
		_ = node.Close(context.Background())
		return err
	}
	c.Log.Info("folio listening", slog.String("addr", addr), slog.String("data", node.Config.DataDir), slog.String("base_url", node.Config.BaseURL))
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr, c.Log); err != nil {
			_ = node.Close(context.Background())
			return err
		}
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	c.Log.Info("shutting down: draining requests")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := node.Close(ctx); err != nil {
		return err
	}
	c.Log.Info("stopped cleanly")
	return nil
}
