package slack

import (
	"folio/persistence"
)

// Where each message posted about a page is, so that a decision taken anywhere
// rewrites them (actors/callback slack.go stages the chat.update):
//
//	pageId 0x00 channel 0x00 ts -> 1
//
// written in the commit of the delivery attempt that posted the message.
const bucketPosted = "slack_posted"

// maxPosted bounds the messages of one page and channel that are read back: a
// notification and its reminders (remind.max is at most 10 by default).
const maxPosted = 64

func postedPrefix(pageID, channel string) []byte {
	k := append([]byte(pageID), 0)
	return append(append(k, channel...), 0)
}

// PutPosted records that a message about pageID was posted at. A pure function of
// the transaction.
func PutPosted(tx *persistence.Tx, pageID string, at Posted) error {
	return tx.Put(bucketPosted, append(postedPrefix(pageID, at.Channel), at.TS...), []byte{1})
}

// PostedMessages are the ts of the messages posted about pageID in channel (at
// most maxPosted, oldest first).
func PostedMessages(store *persistence.Store, pageID, channel string) ([]string, error) {
	var out []string
	prefix := postedPrefix(pageID, channel)
	err := store.View(func(tx *persistence.Tx) error {
		out = out[:0]
		tx.Scan(bucketPosted, prefix, false, func(k, _ []byte) bool {
			out = append(out, string(k[len(prefix):]))
			return len(out) < maxPosted
		})
		return nil
	})
	return out, err
}

// isPosted tells whether the message ts in channel is one Folio recorded posting
// about pageID (its decisions then reach it through a durable delivery).
func isPosted(store *persistence.Store, pageID, channel, ts string) bool {
	found := false
	_ = store.View(func(tx *persistence.Tx) error {
		found = tx.Get(bucketPosted, append(postedPrefix(pageID, channel), ts...)) != nil
		return nil
	})
	return found
}
