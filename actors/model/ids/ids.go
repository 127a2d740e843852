// Package ids makes the opaque identifiers and secrets of Folio from crypto/rand.
package ids

import (
	"crypto/rand"
	"time"
)

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Random returns n characters drawn uniformly from [0-9A-Za-z] (about 5.95 bits each).
func Random(n int) string {
	return randomFrom(alphabet, n)
}

// Upper returns n characters from [0-9A-Z] without look-alikes (for codes people type).
func Upper(n int) string {
	return randomFrom("23456789ABCDEFGHJKLMNPQRSTUVWXYZ", n)
}

// New returns prefix_ followed by 8 characters of creation time (milliseconds since
// the Unix epoch, base62, fixed width) and 16 random characters (≈95 bits).
//
// Ids are keys of large bbolt buckets (pages, events, inbox rows, indexes). Random
// keys scatter each commit's inserts over the whole B+tree, so every insert dirties
// its own 4 KiB leaf (and branches) and a publish rewrote ~55 KB; time-ordered keys
// land next to each other at the right edge, so one commit's inserts share pages.
// The random part keeps ids unguessable (public pages are reached by their link).
func New(prefix string) string {
	return prefix + "_" + timePart(time.Now()) + Random(16)
}

// timePart is t in milliseconds, base62 over alphabet (which is in ASCII order, so
// the strings sort as the times do), zero-padded to 8 characters (good until the
// year 8000).
func timePart(t time.Time) string {
	ms := uint64(max(t.UnixMilli(), 0))
	var out [8]byte
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = alphabet[ms%uint64(len(alphabet))]
		ms /= uint64(len(alphabet))
	}
	return string(out[:])
}

func randomFrom(set string, n int) string {
	out := make([]byte, n)
	buf := make([]byte, n+n/2+8)
	limit := 256 - 256%len(set) // rejection sampling keeps the draw uniform
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			panic("ids: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) < limit {
				out[i] = set[int(b)%len(set)]
				i++
				if i == n {
					break
				}
			}
		}
	}
	return string(out)
}
