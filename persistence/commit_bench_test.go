package persistence

import (
	"bytes"
	"fmt"
	"sort"
	"testing"
)

// BenchmarkGroupCommit measures durable Update calls through the commit loop at
// several concurrencies: commits/s and p50/p99 latency of an acknowledged write.
func BenchmarkGroupCommit(b *testing.B) {
	val := bytes.Repeat([]byte("x"), 2048)
	for _, clients := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			lat, el := commitFrom(b, clients, func(i int) error {
				return s.Update(func(tx *Tx) error {
					if err := tx.Put("p", []byte(fmt.Sprintf("k%09d", i)), val); err != nil {
						return err
					}
					_, _, err := tx.AppendAudit("tenant", val[:300])
					return err
				})
			})
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(b.N)/el.Seconds(), "commits/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
		})
	}
}
