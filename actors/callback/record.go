package callback

import (
	"encoding/json"
	"time"

	"folio/actors/model/blocks"
	"folio/persistence"
)

// Buckets owned by deliveries. A delivery row is written in the same transaction as
// the page event that causes it (the transactional outbox); the due index holds
// exactly the deliveries waiting for an attempt, so it is what the dispatcher re-arms
// from after a restart.
const (
	bucketDeliveries = "deliveries"       // deliveryId -> Delivery (JSON)
	bucketDue        = "delivery_due"     // due(8) 0x00 deliveryId -> lane
	bucketByPage     = "page_deliveries"  // pageId 0x00 created(8) 0x00 deliveryId -> nil
	bucketReplies    = "delivery_replies" // deliveryId -> nil: reply instructions not yet applied
	bucketChains     = "delivery_chains"  // pageId 0x00 target -> id of the chain's newest unfinished delivery
	// bucketByTenant (tenant_index.go): tenantId 0x00 created(8) 0x00 deliveryId -> status
)

// Channels of a delivery: an on_action callback, or a notification channel.
const (
	ChannelCallback = "callback"
	ChannelEmail    = "email"
	ChannelSlack    = "slack"
	ChannelWebhook  = "webhook"
)

// Statuses of a delivery.
const (
	StatusPending   = "pending"   // waiting for its next attempt (or in one)
	StatusSucceeded = "succeeded" // an attempt got a 2xx (or the mail was handed over)
	StatusFailed    = "failed"    // out of attempts, or stopped (410, refused target)
	StatusSkipped   = "skipped"   // recorded, never sent (notifications of sk_test_ pages)
)

const (
	schemaV1    = 1
	keptAttempt = 50 // attempts kept in the row (AttemptCount counts all)
)

// Delivery is one message to one target, with everything needed to send it again
// byte for byte: the body is fixed when the event is committed and never rebuilt.
type Delivery struct {
	V        int    `json:"v"`
	ID       string `json:"id"`
	TenantID string `json:"tenant_id"`
	PageID   string `json:"page_id"`
	EventID  string `json:"event_id"`
	Event    string `json:"event"`
	Channel  string `json:"channel"`
	Target   string `json:"target"` // URL, or e-mail address
	Lane     string `json:"lane"`   // the endpoint: at most PerLane attempts in flight per lane

	Body      []byte            `json:"body,omitempty"` // exact bytes of every attempt (HTTP channels)
	Mail      *Mail             `json:"mail,omitempty"`
	Links     *linkPlan         `json:"links,omitempty"`  // the mail's decision links, minted at each send (links.go)
	Secret    string            `json:"secret,omitempty"` // signing secret; never shown
	WebhookID string            `json:"webhook_id,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	// SlackUpdate marks a chat.update of the messages a slack channel posted about
	// the page (slack.go); Body then lacks the ts, set per message at each attempt.
	SlackUpdate bool    `json:"slack_update,omitempty"`
	DelaysMS    []int64 `json:"delays_ms"` // wait after failed attempt n is DelaysMS[n-1]

	Status        string     `json:"status"`
	Note          string     `json:"note,omitempty"`
	Attempts      []Attempt  `json:"attempts"`
	AttemptCount  int        `json:"attempt_count"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	CompletedAt   *time.Time `json:"completed_at,omitempty"`
	Reply         *Reply     `json:"reply,omitempty"`

	// Causal order: deliveries of one page to one target form a chain in event
	// order, and one starts only once the delivery before it has succeeded or
	// given up. After is that earlier delivery while this one waits for it (it then
	// has no next attempt time and no due row); Next is the one waiting behind this.
	After string `json:"after,omitempty"`
	Next  string `json:"next,omitempty"`
}

// Waiting tells whether d waits for an earlier delivery of its chain.
func (d *Delivery) Waiting() bool {
	return d.Status == StatusPending && d.NextAttemptAt == nil && d.After != ""
}

func chainKey(d *Delivery) []byte {
	return persistence.Key([]byte(d.PageID), []byte(d.Target))
}

// chainBehind puts a new pending delivery at the end of its chain: when an earlier
// delivery of the same page to the same target is still unfinished, d waits for it.
// Run inside the transaction that stages d, before d is written.
func chainBehind(tx *persistence.Tx, d *Delivery) error {
	key := chainKey(d)
	if last := tx.Get(bucketChains, key); last != nil {
		prev, err := get(tx, string(last))
		if err != nil {
			return err
		}
		if prev != nil && prev.Status == StatusPending {
			prev.Next = d.ID
			if err := put(tx, prev, prev.NextAttemptAt, false); err != nil {
				return err
			}
			d.After, d.NextAttemptAt = prev.ID, nil
		}
	}
	return tx.Put(bucketChains, key, []byte(d.ID))
}

// releaseNext runs in the transaction that records d's final attempt: the delivery
// waiting behind d becomes due at once (returned, so the dispatcher can be told);
// with none, d was the chain's newest and the chain's row goes.
func releaseNext(tx *persistence.Tx, d *Delivery, at time.Time) (*Delivery, error) {
	if d.Next == "" {
		key := chainKey(d)
		if string(tx.Get(bucketChains, key)) == d.ID {
			return nil, tx.Delete(bucketChains, key)
		}
		return nil, nil
	}
	nxt, err := get(tx, d.Next)
	if err != nil || nxt == nil || !nxt.Waiting() {
		return nil, err
	}
	t := at
	nxt.NextAttemptAt = &t
	return nxt, put(tx, nxt, nil, false)
}

// Attempt is one try.
type Attempt struct {
	N             int        `json:"attempt"`
	At            time.Time  `json:"at"`
	HTTPStatus    int        `json:"http_status,omitempty"`
	LatencyMS     float64    `json:"latency_ms"`
	Error         string     `json:"error,omitempty"`
	Manual        bool       `json:"manual,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

// Reply is the instructions a receiver's 2xx reply carried.
type Reply struct {
	Blocks   []blocks.Block `json:"blocks"`
	Status   string         `json:"status"` // pending, applied, duplicate, refused
	Error    string         `json:"error,omitempty"`
	BlockIDs []string       `json:"block_ids,omitempty"`
}

// Mail is an e-mail notification. With HTML set it is sent as
// multipart/alternative (Text first, then HTML); without, as plain text.
type Mail struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html,omitempty"`
}

// MaxAttempts is how many attempts the delivery gets automatically.
func (d *Delivery) MaxAttempts() int { return len(d.DelaysMS) + 1 }

// dueKey is a delivery's row of the due index: due(8) 0x00 deliveryId -> lane.
func dueKey(at time.Time, id string) []byte {
	return persistence.Ordered{N: persistence.Nanos(at), ID: id}.Key()
}

// dueOf reads a row of the due index back; ok is false for a key of another shape.
func dueOf(k, v []byte) (due, bool) {
	o, ok := persistence.ParseOrdered(k, "")
	return due{id: o.ID, lane: string(v), at: o.Time()}, ok
}

// pageKey is a delivery's row of the page index: pageId 0x00 created(8) 0x00 deliveryId.
func pageKey(d *Delivery) []byte {
	return persistence.Ordered{Scope: d.PageID, N: persistence.Nanos(d.CreatedAt), ID: d.ID}.Key()
}

func get(tx *persistence.Tx, id string) (*Delivery, error) {
	b := tx.Get(bucketDeliveries, []byte(id))
	if b == nil {
		return nil, nil
	}
	d := &Delivery{}
	return d, json.Unmarshal(b, d)
}

// put writes d, keeps its row of the tenant index, and moves its due-index row from
// prevDue (nil: none) to its own.
func put(tx *persistence.Tx, d *Delivery, prevDue *time.Time, created bool) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := tx.Put(bucketDeliveries, []byte(d.ID), b); err != nil {
		return err
	}
	if err := indexTenant(tx, d, created); err != nil {
		return err
	}
	if created {
		if err := tx.Put(bucketByPage, pageKey(d), nil); err != nil {
			return err
		}
	}
	if prevDue != nil {
		if err := tx.Delete(bucketDue, dueKey(*prevDue, d.ID)); err != nil {
			return err
		}
	}
	if d.Status == StatusPending && d.NextAttemptAt != nil {
		return tx.Put(bucketDue, dueKey(*d.NextAttemptAt, d.ID), []byte(d.Lane))
	}
	return nil
}

// Load reads one delivery; nil when it does not exist.
func Load(store *persistence.Store, id string) (*Delivery, error) {
	var d *Delivery
	err := store.View(func(tx *persistence.Tx) (err error) {
		d, err = get(tx, id)
		return err
	})
	return d, err
}

// ListPage lists a page's deliveries, newest first.
func ListPage(store *persistence.Store, pageID string, limit, offset int) (out []*Delivery, total int, err error) {
	out = []*Delivery{}
	err = store.View(func(tx *persistence.Tx) (err error) {
		total, err = tx.Paged(bucketByPage, persistence.ScopePrefix(pageID), true, limit, offset, nil, func(k, _ []byte) error {
			o, _ := persistence.ParseOrdered(k, pageID)
			return appendDelivery(tx, &out, o.ID)
		})
		return err
	})
	return out, total, err
}

// appendDelivery appends the delivery id to out, when it still exists.
func appendDelivery(tx *persistence.Tx, out *[]*Delivery, id string) error {
	d, err := get(tx, id)
	if d != nil {
		*out = append(*out, d)
	}
	return err
}

// due is one row of the due index.
type due struct {
	id, lane string
	at       time.Time
}

// allDue reads the whole due index (at start, to re-arm).
func allDue(store *persistence.Store) ([]due, error) {
	var out []due
	err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketDue, nil, false, func(k, v []byte) bool {
			if r, ok := dueOf(k, v); ok {
				out = append(out, r)
			}
			return true
		})
		return nil
	})
	return out, err
}

// unappliedReplies lists deliveries whose reply instructions are not yet applied.
func unappliedReplies(store *persistence.Store) ([]string, error) {
	var out []string
	err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketReplies, nil, false, func(k, _ []byte) bool {
			out = append(out, string(k))
			return true
		})
		return nil
	})
	return out, err
}
