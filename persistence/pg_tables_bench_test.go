//go:build linux

package persistence

import (
	"bytes"
	"fmt"
	"testing"

	"folio/persistence/pgtest"
)

// BenchmarkPGPublishShape commits what a publish writes, in the two layouts in
// one run: the kv layout (schema version 1, the release before) and the hot
// records' tables (version 2), taking turns (-count). Each commit writes a page
// record of about 16 KiB of JSON, its revision and an audit entry, from 16
// clients (group commit). Compare the layouts within one run:
//
//	go test -run '^$' -bench PGPublishShape -count 6 ./persistence/
func BenchmarkPGPublishShape(b *testing.B) {
	page := []byte(`{"tenant_id":"ten_bench","status":"active","title":"Deploy","version":1,"created_at":"2026-11-28T08:00:00Z","blocks":[` +
		string(bytes.Repeat([]byte(`{"type":"text","data":{"content":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod."}},`), 160)) +
		`{"type":"divider"}]}`)
	for _, layout := range []struct {
		name    string
		version int
	}{{"kv", 1}, {"tables", 2}} {
		b.Run(layout.name, func(b *testing.B) {
			url := pgtest.URL(b)
			e, err := openPostgres(url, layout.version, DefaultPGLaterWait)
			if err != nil {
				b.Fatal(err)
			}
			s := newStore(e, Options{})
			defer s.Close()
			b.SetBytes(int64(len(page)))
			commitFrom(b, 16, func(i int) error {
				id := []byte(fmt.Sprintf("pg_%09d", i))
				return s.Update(func(tx *Tx) error {
					if err := tx.Put("pages", id, page); err != nil {
						return err
					}
					if err := tx.Put("page_revs", id, U64(1)); err != nil {
						return err
					}
					_, _, err := tx.AppendAudit("ten_bench", []byte(`{"event_type":"page.created","page_id":"`+string(id)+`"}`))
					return err
				})
			})
		})
	}
}
