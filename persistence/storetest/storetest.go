//go:build linux

// Package storetest opens the store a domain test runs on: bbolt in a temporary
// directory, or, with FOLIO_TEST_STORE=pg, a database of its own on the test
// PostgreSQL server (pgtest), so the actors' suites check both engines:
// `FOLIO_TEST_STORE=pg go test ./actors/...`.
package storetest

import (
	"os"
	"sync"
	"testing"

	"folio/persistence"
	"folio/persistence/pgtest"
)

var (
	mu   sync.Mutex
	urls = map[string]string{} // directory -> its database, so a reopen finds it
)

// URL is the store for dir: empty (bbolt in dir) unless FOLIO_TEST_STORE is pg.
func URL(t testing.TB, dir string) string {
	if os.Getenv("FOLIO_TEST_STORE") != "pg" {
		return ""
	}
	mu.Lock()
	defer mu.Unlock()
	if url, ok := urls[dir]; ok {
		return url
	}
	url := pgtest.URL(t)
	urls[dir] = url
	return url
}

// Open opens the store for dir (see URL); the caller closes it.
func Open(t testing.TB, dir string) *persistence.Store {
	t.Helper()
	s, err := persistence.OpenURL(URL(t, dir), dir, persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
