package callback

import "folio/persistence"

// The tenant index lists a workspace's deliveries, newest first, and filters them by
// status without reading a row: its key orders them, its value is the status.
//
//	tenant_deliveries: tenantId 0x00 created(8) 0x00 deliveryId -> status
//
// put keeps it in the transaction that writes the row, so the index and the row
// never disagree. Deliveries written before the index existed are not in it; one
// still pending joins it at its next attempt, a finished one stays unlisted (it
// remains readable by id and in its page's log).
const bucketByTenant = "tenant_deliveries"

func tenantKey(tenantID string, created uint64, id string) []byte {
	return persistence.Ordered{Scope: tenantID, N: created, ID: id}.Key()
}

// indexTenant writes d's row of the tenant index when d is created, and again only
// when its status changed: most attempts leave a delivery pending, and reading a key
// costs less than rewriting the page of the tree that holds it.
func indexTenant(tx *persistence.Tx, d *Delivery, created bool) error {
	k := tenantKey(d.TenantID, persistence.Nanos(d.CreatedAt), d.ID)
	was := tx.Get(bucketByTenant, k)
	if !created && string(was) == d.Status {
		return nil
	}
	if was != nil {
		if err := countFailed(tx, d, string(was), -1); err != nil {
			return err
		}
	}
	if err := countFailed(tx, d, d.Status, 1); err != nil {
		return err
	}
	return tx.Put(bucketByTenant, k, []byte(d.Status))
}

// bucketFailedCounts counts the failed deliveries of the tenant index, by tenant
// (tenantId) and by page ("page" 0x00 pageId), kept in the transaction that moves a
// delivery into or out of failed (a retry that succeeds takes it out), so the
// dashboard reads one key where it would otherwise walk the log.
const bucketFailedCounts = "failed_deliveries"

func countFailed(tx *persistence.Tx, d *Delivery, status string, delta int64) error {
	if status != StatusFailed {
		return nil
	}
	for _, k := range [][]byte{[]byte(d.TenantID), append([]byte("page\x00"), d.PageID...)} {
		n := int64(persistence.ReadU64(tx.Get(bucketFailedCounts, k))) + delta
		var err error
		if n <= 0 {
			err = tx.Delete(bucketFailedCounts, k)
		} else {
			err = tx.Put(bucketFailedCounts, k, persistence.U64(uint64(n)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// FailedCounts reads how many deliveries of the tenant, and of pageID among them
// ("" for none), have failed (gave up or were stopped and not retried since).
func FailedCounts(store *persistence.Store, tenantID, pageID string) (tenant, page int, err error) {
	err = store.View(func(tx *persistence.Tx) error {
		tenant = int(persistence.ReadU64(tx.Get(bucketFailedCounts, []byte(tenantID))))
		if pageID != "" {
			page = int(persistence.ReadU64(tx.Get(bucketFailedCounts, append([]byte("page\x00"), pageID...))))
		}
		return nil
	})
	return tenant, page, err
}

// ListTenant lists a tenant's deliveries, newest first; status (one of the Status
// constants, "" for all) keeps only those in that state, and total counts them. It
// reads the index's keys up to the end of the tenant's range, but decodes only the
// rows it returns.
func ListTenant(store *persistence.Store, tenantID, status string, limit, offset int) (out []*Delivery, total int, err error) {
	out = []*Delivery{}
	keep := func(_, v []byte) bool { return status == "" || string(v) == status }
	err = store.View(func(tx *persistence.Tx) (err error) {
		total, err = tx.Paged(bucketByTenant, persistence.ScopePrefix(tenantID), true, limit, offset, keep, func(k, _ []byte) error {
			o, _ := persistence.ParseOrdered(k, tenantID)
			return appendDelivery(tx, &out, o.ID)
		})
		return err
	})
	return out, total, err
}

// ListTenantPage is ListTenant for one page of the tenant: the page's own index
// gives the order, the tenant index the status, so again only the rows returned are
// decoded, and a page of another tenant lists nothing.
func ListTenantPage(store *persistence.Store, tenantID, pageID, status string, limit, offset int) (out []*Delivery, total int, err error) {
	out = []*Delivery{}
	err = store.View(func(tx *persistence.Tx) (err error) {
		keep := func(k, _ []byte) bool {
			o, ok := persistence.ParseOrdered(k, pageID)
			v := tx.Get(bucketByTenant, tenantKey(tenantID, o.N, o.ID))
			return ok && v != nil && (status == "" || string(v) == status)
		}
		total, err = tx.Paged(bucketByPage, persistence.ScopePrefix(pageID), true, limit, offset, keep, func(k, _ []byte) error {
			o, _ := persistence.ParseOrdered(k, pageID)
			return appendDelivery(tx, &out, o.ID)
		})
		return err
	})
	return out, total, err
}
