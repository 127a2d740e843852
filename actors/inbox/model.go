// Package inbox keeps what a tenant sees of all its pages at once: one inbox entry
// per page (with a reading state of its own), the incremental counters behind the
// dashboard, and the rolling window behind the quality score. Page changes reach it
// through an Outlet that writes in the page's own commit transaction, so entries
// and counters can never disagree with the pages, even after a crash; reading-state
// changes go through one InboxActor per tenant.
package inbox

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"

	"folio/persistence"
)

// Buckets owned by this package.
const (
	bucketEntries = "inbox"        // entryId -> Entry (JSON)
	bucketIndex   = "inbox_index"  // tenant 0x00 mask dims createdAt(8) entryId -> nil (see index.go)
	bucketCounts  = "inbox_counts" // tenant 0x00 mask dims -> count(8)
	bucketHours   = "stats_hour"   // tenant 0x00 hourStart(8) -> counters (stats.go), by page creation hour
	bucketAll     = "stats_all"    // tenant -> counters (stats.go), all time
	bucketWindow  = "quality_window"
	bucketQuality = "quality_agg"
)

// Reading states of an entry (specification section 3): unread -> read -> archived.
const (
	Unread   = "unread"
	Read     = "read"
	Archived = "archived"
)

const schemaV1 = 1

// Entry is one page as its tenant's inbox shows it. Status is the reading state;
// PageStatus is the page's own status as of its last committed change. The page
// fields are written only by the Outlet (in the page's commit), the reading state
// only by the tenant's InboxActor; both read-modify-write inside one bbolt
// transaction, so neither ever overwrites the other.
type Entry struct {
	V          int    `json:"v"`
	ID         string `json:"id"`
	TenantID   string `json:"tenant_id"`
	PageID     string `json:"page_id"`
	Title      string `json:"title"`
	PageType   string `json:"page_type"`
	Priority   string `json:"priority"`
	Status     string `json:"status"`
	Starred    bool   `json:"starred"`
	PageStatus string `json:"page_status"`
	Decision   string `json:"decision,omitempty"` // approved or rejected once the page completed
	// The page's most recent executed action, its label and outcome (approved,
	// rejected, none); empty before any (verdict.go in actors/page).
	ActionID    string     `json:"action_id,omitempty"`
	ActionLabel string     `json:"action_label,omitempty"`
	Outcome     string     `json:"outcome,omitempty"`
	Livemode    bool       `json:"livemode"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	// DueAt is the page's nearest running deadline (page.DueAt) as of its last
	// commit: nil once the page is no longer active.
	DueAt *time.Time `json:"due_at,omitempty"`
}

// Overdue tells whether the page is active and past its due time at now.
func (e *Entry) Overdue(now time.Time) bool {
	return e.EffectivePageStatus(now) == "active" && e.DueAt != nil && !now.Before(*e.DueAt)
}

// neutral tells whether a completed page's decision was neither approval nor
// rejection: completed by an action declared decision "none" (no Decision, the last
// action's outcome none). A completed entry without a Decision from before outcomes
// were recorded keeps counting as approved, as it always did.
func (e *Entry) neutral() bool {
	return e.Decision == "" && e.Outcome == "none"
}

// EffectivePageStatus is the page status a reader sees at now: an active page past
// its expiry time reads as expired even before the expiry loop committed it.
func (e *Entry) EffectivePageStatus(now time.Time) string {
	if e.PageStatus == "active" && e.ExpiresAt != nil && !now.Before(*e.ExpiresAt) {
		return "expired"
	}
	return e.PageStatus
}

// EntryID is the inbox entry of a page: derived from the page id, so the outlet
// finds it without another index.
func EntryID(pageID string) string {
	return "inb_" + strings.TrimPrefix(pageID, "pg_")
}

func loadEntry(tx *persistence.Tx, id string) *Entry {
	b := tx.Get(bucketEntries, []byte(id))
	if b == nil {
		return nil
	}
	var e Entry
	if json.Unmarshal(b, &e) != nil {
		return nil
	}
	return &e
}

func putEntry(tx *persistence.Tx, e *Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return tx.Put(bucketEntries, []byte(e.ID), b)
}

// counter helpers: 8-byte big-endian counts.

func addCount(tx *persistence.Tx, bucket string, key []byte, delta int64) error {
	n := int64(persistence.ReadU64(tx.Get(bucket, key))) + delta
	if n <= 0 {
		return tx.Delete(bucket, key)
	}
	return tx.Put(bucket, key, persistence.U64(uint64(n)))
}

// appendStr appends s length-prefixed, so variable parts of a key never run into
// each other whatever bytes they hold.
func appendStr(k []byte, s string) []byte {
	k = binary.AppendUvarint(k, uint64(len(s)))
	return append(k, s...)
}

func timeKey(t time.Time) []byte { return persistence.U64(uint64(t.UnixNano())) }

// timeKeyLen is the length of every timeKey.
const timeKeyLen = 8
