// Package ids makes the opaque identifiers and secrets of Folio from crypto/rand.
package ids

import (
	"crypto/rand"
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

// New returns prefix_ followed by 20 random characters (≈119 bits).
func New(prefix string) string {
	return prefix + "_" + Random(20)
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
