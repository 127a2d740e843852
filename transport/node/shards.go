package node

import cmap "github.com/orcaman/concurrent-map"

// protoactor's process registry is 1,024 concurrent maps, each of which
// concurrent-map splits into SHARD_COUNT (32) locked shards: 32,768 small maps,
// about 100,000 heap objects the collector marks on every cycle before one page
// is live. The 1,024-way split already spreads the registry's locks over more
// buckets than a node has processors, so one shard per map loses no parallelism
// and takes those objects out of every mark phase (shorter marks are shorter
// stalls for the requests running during them).
//
// It is set in init, before any actor system exists, because concurrent-map reads
// it in every New.
func init() { cmap.SHARD_COUNT = 1 }
