package tenant

import (
	"folio/actors/page"
	"folio/persistence"
)

// Usage is the page outlet that counts a tenant's live pages per calendar month
// (UTC): one row a tenant and month, raised in the commit that creates the page, so
// the count and the pages can never disagree. Pages made with an sk_test_ key
// (livemode false) are not counted.
type Usage struct{}

var _ page.Outlet = Usage{}

var _ page.Reader = Usage{}

// Reads are the month's count, which Stage reads for a page this commit creates.
func (Usage) Reads(p *page.Page, events []page.Event) []persistence.Read {
	if !p.Livemode {
		return nil
	}
	for _, ev := range events {
		if ev.Type == "page.created" {
			return []persistence.Read{{Bucket: BucketUsage, Key: monthKey(p.TenantID, p.CreatedAt)}}
		}
	}
	return nil
}

// Stage counts a page created by this commit.
func (Usage) Stage(tx *persistence.Tx, p *page.Page, events []page.Event) error {
	if !p.Livemode {
		return nil
	}
	for _, ev := range events {
		if ev.Type == "page.created" {
			k := monthKey(p.TenantID, p.CreatedAt)
			return tx.Put(BucketUsage, k, persistence.U64(persistence.ReadU64(tx.Get(BucketUsage, k))+1))
		}
	}
	return nil
}

// Committed has nothing to do: the count is read straight from its row.
func (Usage) Committed(*page.Page, []page.Event) {}
