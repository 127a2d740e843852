// Package mailbox is the AgentMailbox: per tenant, the durable log of agent-targeted
// events (every event of the tenant's pages) with a strictly increasing sequence
// number, the unacknowledged inbox over it, and the live agent-stream subscribers.
//
// The log is written by the Outlet inside each page's commit transaction (so an event
// exists exactly when the change that caused it does); one MailboxActor per tenant
// pushes committed events to live subscribers in sequence order.
package mailbox

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/persistence"
)

// Buckets owned by the mailbox. Keys are tenant 0x00 seq(8) so a tenant's log, its
// unacknowledged index and a page's events are range scans in sequence order.
const (
	bucketEvents  = "agent_events"    // tenant 0x00 seq -> record (recordV2, binary head + payload)
	bucketUnacked = "agent_unacked"   // tenant 0x00 seq -> present, while unacknowledged
	bucketByPage  = "agent_by_page"   // tenant 0x00 pageId 0x00 seq -> nil
	bucketByID    = "agent_event_ids" // eventId -> tenant 0x00 seq
	bucketSeq     = "agent_seq"       // tenant -> last seq (U64)
	bucketPending = "agent_unacked_n" // tenant -> number of unacknowledged events (U64)
)

// record is one stored agent event. Payload is the exact wire payload (page.EncodeEvent)
// so replays and inbox reads serve the same bytes the live stream sent.
type record struct {
	PageID  string
	EventID string
	Type    string
	At      int64 // unix nanoseconds
	Payload []byte
}

// recordV2 starts every stored record: version byte, At (8 bytes), then PageID,
// EventID and Type each as uvarint length + bytes, then the payload to the end.
// The fixed head lets retention trimming (once per new event in steady state,
// inside the serial commit) read what it needs without parsing the payload.
const recordV2 = 2

func (r *record) encode() []byte {
	out := make([]byte, 0, 1+8+3*binary.MaxVarintLen16+len(r.PageID)+len(r.EventID)+len(r.Type)+len(r.Payload))
	out = append(out, recordV2)
	out = binary.BigEndian.AppendUint64(out, uint64(r.At))
	for _, f := range []string{r.PageID, r.EventID, r.Type} {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return append(out, r.Payload...)
}

var errBadRecord = errors.New("mailbox: malformed stored record")

// decodeRecord reads a stored record; Payload aliases raw (valid for the
// transaction only, like every bbolt value).
func decodeRecord(raw []byte) (record, error) {
	var r record
	if len(raw) < 9 || raw[0] != recordV2 {
		return r, errBadRecord
	}
	r.At = int64(binary.BigEndian.Uint64(raw[1:9]))
	rest := raw[9:]
	for _, f := range []*string{&r.PageID, &r.EventID, &r.Type} {
		n, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < n {
			return r, errBadRecord
		}
		*f = string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
	}
	r.Payload = rest
	return r, nil
}

// Retention bounds each tenant's log: at most MaxEvents events, none older than
// MaxAge (0 = no age bound). Older events leave the log, the inbox and replay.
type Retention struct {
	MaxEvents int
	MaxAge    time.Duration
}

// DefaultRetention keeps 10,000 events per tenant for 30 days.
var DefaultRetention = Retention{MaxEvents: 10000, MaxAge: 30 * 24 * time.Hour}

// ErrNotFound is an unknown (or no longer retained) event id.
var ErrNotFound = errors.New("mailbox: no such event")

// present marks an index row (Tx.Get returns nil for an empty value).
var present = []byte{1}

func seqKey(tenant string, seq uint64) []byte {
	return persistence.Key([]byte(tenant), persistence.U64(seq))
}

func pageKey(tenant, pageID string, seq uint64) []byte {
	return persistence.Key([]byte(tenant), []byte(pageID), persistence.U64(seq))
}

func tenantPrefix(tenant string) []byte { return append([]byte(tenant), 0) }

func seqOf(k []byte) uint64 { return persistence.ReadU64(k[len(k)-8:]) }

// stage appends events to their tenants' logs inside tx: each gets the next sequence
// number of its tenant (written to events[i].Seq), its record, its inbox and page
// index rows; then the oldest rows beyond the retention count are trimmed. It is a
// pure function of tx (it may run more than once).
func stage(tx *persistence.Tx, r Retention, events []page.Event) error {
	var tl tally
	for i := range events {
		e := &events[i]
		if e.TenantID == "" {
			continue
		}
		t := tl.of(tx, e.TenantID)
		t.seq++
		seq := t.seq
		e.Seq = seq
		rec := (&record{PageID: e.PageID, EventID: e.ID, Type: e.Type, At: e.At.UnixNano(), Payload: page.EncodeEvent(e)}).encode()
		k := seqKey(e.TenantID, seq)
		if err := tx.Put(bucketEvents, k, rec); err != nil {
			return err
		}
		t.bytes += int64(len(rec))
		if err := tx.Put(bucketUnacked, k, present); err != nil {
			return err
		}
		t.pending++
		if err := tx.Put(bucketByPage, pageKey(e.TenantID, e.PageID, seq), nil); err != nil {
			return err
		}
		if e.ID != "" {
			if err := tx.Put(bucketByID, []byte(e.ID), k); err != nil {
				return err
			}
		}
		if r.MaxEvents > 0 && seq > uint64(r.MaxEvents) {
			unacked, size, err := drop(tx, e.TenantID, seq-uint64(r.MaxEvents))
			if err != nil {
				return err
			}
			if unacked {
				t.pending--
			}
			t.bytes -= size
		}
	}
	return tl.flush(tx)
}

// tally carries, through one transaction function, the two per-tenant counter rows
// of the log (last sequence number, unacknowledged count) of each tenant it
// touches: each row is read once and written once by flush, however many events
// the function appends or trims. In steady state every new event also trims one,
// and reading and writing the rows per event (the sequence once, the count on
// append and again on trim) was six of its seventeen bbolt operations.
type tally []tenantTally

type tenantTally struct {
	tenant  string
	seq     uint64 // the last sequence number, as read plus appended
	pending int64  // the unacknowledged count, as read plus changes
	bytes   int64  // the change to the log's stored bytes (page.StoredEvents)
}

// of returns tenant's counters, reading them from tx on first use.
func (tl *tally) of(tx *persistence.Tx, tenant string) *tenantTally {
	for i := range *tl {
		if (*tl)[i].tenant == tenant {
			return &(*tl)[i]
		}
	}
	t := []byte(tenant)
	tx.Prefetch(persistence.Read{Bucket: bucketSeq, Key: t}, persistence.Read{Bucket: bucketPending, Key: t})
	*tl = append(*tl, tenantTally{tenant: tenant,
		seq:     persistence.ReadU64(tx.Get(bucketSeq, t)),
		pending: int64(persistence.ReadU64(tx.Get(bucketPending, t)))})
	return &(*tl)[len(*tl)-1]
}

// flush writes every touched tenant's counters (the count never below zero).
func (tl tally) flush(tx *persistence.Tx) error {
	for _, t := range tl {
		if err := tx.Put(bucketSeq, []byte(t.tenant), persistence.U64(t.seq)); err != nil {
			return err
		}
		if err := tx.Put(bucketPending, []byte(t.tenant), persistence.U64(uint64(max(t.pending, 0)))); err != nil {
			return err
		}
		if err := page.AddStored(tx, t.tenant, page.StoredEvents, t.bytes); err != nil {
			return err
		}
	}
	return nil
}

// addPending changes tenant's unacknowledged count by delta (never below zero).
func addPending(tx *persistence.Tx, tenant []byte, delta int) error {
	n := int64(persistence.ReadU64(tx.Get(bucketPending, tenant))) + int64(delta)
	if n < 0 {
		n = 0
	}
	return tx.Put(bucketPending, tenant, persistence.U64(uint64(n)))
}

// drop removes one event (if still there) with its index rows and reports whether
// it was still unacknowledged and the size of its record (the caller owns the
// unacknowledged count and the stored bytes).
func drop(tx *persistence.Tx, tenant string, seq uint64) (unacked bool, size int64, err error) {
	k := seqKey(tenant, seq)
	raw := tx.Get(bucketEvents, k)
	if raw == nil {
		return false, 0, nil
	}
	size = int64(len(raw))
	rec, err := decodeRecord(raw)
	if err != nil {
		return false, 0, err
	}
	if tx.Get(bucketUnacked, k) != nil {
		if err := tx.Delete(bucketUnacked, k); err != nil {
			return false, 0, err
		}
		unacked = true
	}
	if err := tx.Delete(bucketByPage, pageKey(tenant, rec.PageID, seq)); err != nil {
		return false, 0, err
	}
	if rec.EventID != "" {
		if err := tx.Delete(bucketByID, []byte(rec.EventID)); err != nil {
			return false, 0, err
		}
	}
	return unacked, size, tx.Delete(bucketEvents, k)
}

// Last is the tenant's newest committed sequence number (0 when none).
func Last(store *persistence.Store, tenant string) (uint64, error) {
	b, err := store.Get(bucketSeq, []byte(tenant))
	return persistence.ReadU64(b), err
}

// Stored is one event read back from the log.
type Stored struct {
	Seq     uint64
	Type    string
	PageID  string
	Payload []byte
	Acked   bool
}

// Frame frames a stored event exactly as the live stream did.
func (s Stored) Frame() *frame.Frame {
	return frame.New(s.Seq, s.Type, strconv.FormatUint(s.Seq, 10), s.Payload)
}

// WithAck is the payload with "acknowledged" added (inbox and page listings).
func (s Stored) WithAck() json.RawMessage {
	p := bytes.TrimRight(s.Payload, " \n")
	if len(p) < 2 || p[len(p)-1] != '}' {
		return json.RawMessage(p)
	}
	out := make([]byte, 0, len(p)+24)
	out = append(out, p[:len(p)-1]...)
	if s.Acked {
		out = append(out, `,"acknowledged":true}`...)
	} else {
		out = append(out, `,"acknowledged":false}`...)
	}
	return out
}

func decode(k, v []byte) (Stored, error) {
	rec, err := decodeRecord(v)
	if err != nil {
		return Stored{}, err
	}
	return Stored{Seq: seqOf(k), Type: rec.Type, PageID: rec.PageID, Payload: bytes.Clone(rec.Payload)}, nil
}

// Read returns up to limit events of tenant with after < seq <= upto, in order.
// Callers replaying a long range read it in chunks (no read transaction is held
// while they write to the network).
func Read(store *persistence.Store, tenant string, after, upto uint64, limit int) ([]Stored, error) {
	var out []Stored
	if upto <= after {
		return nil, nil
	}
	err := store.View(func(tx *persistence.Tx) error {
		var derr error
		tx.ScanRange(bucketEvents, seqKey(tenant, after+1), seqKey(tenant, upto+1), func(k, v []byte) bool {
			s, err := decode(k, v)
			if err != nil {
				derr = err
				return false
			}
			out = append(out, s)
			return len(out) < limit
		})
		return derr
	})
	return out, err
}

// Pending is the number of unacknowledged events of tenant.
func Pending(store *persistence.Store, tenant string) (int, error) {
	b, err := store.Get(bucketPending, []byte(tenant))
	return int(persistence.ReadU64(b)), err
}

// Inbox lists tenant's unacknowledged events, oldest first, with their total.
func Inbox(store *persistence.Store, tenant string, limit, offset int) ([]Stored, int, error) {
	out := []Stored{}
	total := 0
	err := store.View(func(tx *persistence.Tx) error {
		total = int(persistence.ReadU64(tx.Get(bucketPending, []byte(tenant))))
		skipped := 0
		var derr error
		tx.Scan(bucketUnacked, tenantPrefix(tenant), false, func(k, _ []byte) bool {
			if skipped < offset {
				skipped++
				return true
			}
			s, ok, err := lookup(tx, k)
			if err != nil {
				derr = err
				return false
			}
			if ok {
				out = append(out, s)
			}
			return len(out) < limit
		})
		return derr
	})
	return out, total, err
}

// lookup reads the event at seqKey k; ok is false when it is no longer retained.
func lookup(tx *persistence.Tx, k []byte) (s Stored, ok bool, err error) {
	v := tx.Get(bucketEvents, k)
	if v == nil {
		return Stored{}, false, nil
	}
	s, err = decode(k, v)
	return s, err == nil, err
}

// ByPage lists the retained events of one page of tenant, oldest first, with their
// total and acknowledgement state.
func ByPage(store *persistence.Store, tenant, pageID string, limit, offset int) ([]Stored, int, error) {
	out := []Stored{}
	total := 0
	err := store.View(func(tx *persistence.Tx) error {
		var derr error
		tx.Scan(bucketByPage, persistence.Key([]byte(tenant), []byte(pageID), nil), false, func(k, _ []byte) bool {
			total++
			if total <= offset || len(out) >= limit {
				return true
			}
			sk := seqKey(tenant, seqOf(k))
			s, ok, err := lookup(tx, sk)
			if err != nil {
				derr = err
				return false
			}
			if ok {
				s.Acked = tx.Get(bucketUnacked, sk) == nil
				out = append(out, s)
			}
			return true
		})
		return derr
	})
	return out, total, err
}

// PageAfter returns up to limit retained events of one page of tenant with a
// sequence number above after, oldest first (page-stream replay).
func PageAfter(store *persistence.Store, tenant, pageID string, after uint64, limit int) ([]Stored, error) {
	var out []Stored
	err := store.View(func(tx *persistence.Tx) error {
		var derr error
		from, to := pageKey(tenant, pageID, after+1), pageKey(tenant, pageID, ^uint64(0))
		tx.ScanRange(bucketByPage, from, append(to, 0), func(k, _ []byte) bool {
			s, ok, err := lookup(tx, seqKey(tenant, seqOf(k)))
			if err != nil {
				derr = err
				return false
			}
			if ok {
				out = append(out, s)
			}
			return len(out) < limit
		})
		return derr
	})
	return out, err
}

// PageNewest calls fn with the retained events of one page of tenant above after,
// newest first, until fn returns false (bounding a replay to its latest events).
func PageNewest(store *persistence.Store, tenant, pageID string, after uint64, fn func(Stored) bool) error {
	return store.View(func(tx *persistence.Tx) error {
		var derr error
		prefix := append(persistence.Key([]byte(tenant), []byte(pageID)), 0)
		tx.Scan(bucketByPage, prefix, true, func(k, _ []byte) bool {
			seq := seqOf(k)
			if seq <= after {
				return false
			}
			s, ok, err := lookup(tx, seqKey(tenant, seq))
			if err != nil {
				derr = err
				return false
			}
			return !ok || fn(s)
		})
		return derr
	})
}

// PageLast is the sequence number of the page's newest retained event (0: none): where
// a node that starts streaming the page begins hearing of other nodes' commits.
func PageLast(store *persistence.Store, tenant, pageID string) (uint64, error) {
	var last uint64
	err := store.View(func(tx *persistence.Tx) error {
		prefix := append(persistence.Key([]byte(tenant), []byte(pageID)), 0)
		tx.Scan(bucketByPage, prefix, true, func(k, _ []byte) bool {
			last = seqOf(k)
			return false
		})
		return nil
	})
	return last, err
}

// resolve finds the sequence number of an event reference: the decimal stream id or
// the event's eventId. ok is false when tenant has no such retained event.
func resolve(tx *persistence.Tx, tenant, ref string) (uint64, bool) {
	if ref == "" || len(ref) > 64 {
		return 0, false
	}
	if seq, err := strconv.ParseUint(ref, 10, 64); err == nil {
		return seq, seq > 0 && tx.Get(bucketEvents, seqKey(tenant, seq)) != nil
	}
	k := tx.Get(bucketByID, []byte(ref))
	if k == nil || !bytes.HasPrefix(k, tenantPrefix(tenant)) || !strings.HasPrefix(ref, "evt_") {
		return 0, false
	}
	return seqOf(k), tx.Get(bucketEvents, k) != nil
}

// ack acknowledges one event (idempotent); ErrNotFound when tenant has no such event.
func ack(store *persistence.Store, tenant, ref string) error {
	return store.Update(func(tx *persistence.Tx) error {
		seq, ok := resolve(tx, tenant, ref)
		if !ok {
			return ErrNotFound
		}
		k := seqKey(tenant, seq)
		if tx.Get(bucketUnacked, k) == nil {
			return nil
		}
		if err := tx.Delete(bucketUnacked, k); err != nil {
			return err
		}
		return addPending(tx, []byte(tenant), -1)
	})
}

// Sweep applies the retention to every tenant's log: events beyond MaxEvents or
// older than MaxAge are removed, at most batch per transaction per tenant. It
// returns how many were removed.
func Sweep(store *persistence.Store, r Retention, now time.Time, batch int) (int, error) {
	type tenantLast struct {
		tenant string
		last   uint64
	}
	var tenants []tenantLast
	if err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketSeq, nil, false, func(k, v []byte) bool {
			tenants = append(tenants, tenantLast{string(k), persistence.ReadU64(v)})
			return true
		})
		return nil
	}); err != nil {
		return 0, err
	}
	removed := 0
	for _, t := range tenants {
		for {
			var due []uint64
			if err := store.View(func(tx *persistence.Tx) error {
				tx.Scan(bucketEvents, tenantPrefix(t.tenant), false, func(k, v []byte) bool {
					seq := seqOf(k)
					old := r.MaxEvents > 0 && t.last >= uint64(r.MaxEvents) && seq <= t.last-uint64(r.MaxEvents)
					if !old && r.MaxAge > 0 {
						if rec, err := decodeRecord(v); err == nil && now.Sub(time.Unix(0, rec.At)) > r.MaxAge {
							old = true
						}
					}
					if !old {
						return false
					}
					due = append(due, seq)
					return len(due) < batch
				})
				return nil
			}); err != nil {
				return removed, err
			}
			if len(due) == 0 {
				break
			}
			if err := store.Update(func(tx *persistence.Tx) error {
				gone, size := 0, int64(0)
				for _, seq := range due {
					unacked, n, err := drop(tx, t.tenant, seq)
					if err != nil {
						return err
					}
					size += n
					if unacked {
						gone++
					}
				}
				if err := page.AddStored(tx, t.tenant, page.StoredEvents, -size); err != nil {
					return err
				}
				if gone == 0 {
					return nil
				}
				return addPending(tx, []byte(t.tenant), -gone)
			}); err != nil {
				return removed, err
			}
			removed += len(due)
			if len(due) < batch {
				break
			}
		}
	}
	return removed, nil
}

// Oldest is the first retained sequence number of tenant (0 when the log is empty).
func Oldest(store *persistence.Store, tenant string) (uint64, error) {
	var first uint64
	err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketEvents, tenantPrefix(tenant), false, func(k, _ []byte) bool {
			first = seqOf(k)
			return false
		})
		return nil
	})
	return first, err
}

// bucketMigrations marks the one-time migrations done on a store (name -> 1).
const bucketMigrations = "agent_migrations"

// MigrateStoredBytes sets, once per store (a marker in the same transaction), each
// tenant's event-log bytes (page.StoredEvents) to the size of the records its log
// holds: logs written before they were counted. It runs at start, before any page
// commits, in one transaction that reads every record once.
func MigrateStoredBytes(store *persistence.Store) error {
	const marker = "stored_events_v1"
	return store.Update(func(tx *persistence.Tx) error {
		if tx.Get(bucketMigrations, []byte(marker)) != nil {
			return nil
		}
		// A scan inside a write: run once per store by its marker, as
		// page.MigrateStorage (actors/page/storage_migrate.go) says.
		sums := map[string]int64{}
		tx.Scan(bucketEvents, nil, false, func(k, v []byte) bool {
			if i := bytes.IndexByte(k, 0); i > 0 {
				sums[string(k[:i])] += int64(len(v))
			}
			return true
		})
		for tenant, n := range sums {
			if err := page.AddStored(tx, tenant, page.StoredEvents, n-page.Stored(tx, tenant).Events); err != nil {
				return err
			}
		}
		return tx.Put(bucketMigrations, []byte(marker), []byte{1})
	})
}
