package channels

import (
	"github.com/hivecrawl/hivecrawl/internal/domain"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Budgets of new hosts per registrable domain (docs/developer/leases.md, "Budgets
// for new hosts"). A wildcard-subdomain trap (trap.test linking to ever
// new wN.trap.test) would otherwise make a channel of every subdomain it
// invents, up to MaxChannels. Inter-site URLs make at most
// Options.DomainBudget channels per registrable domain. Seeds the
// operator adds count towards it but are always taken.

// budgetRecord counts the channels inter-site URLs made for one domain.
type budgetRecord struct {
	Created int `json:"created"`
}

// budgetKey is the limits bucket's key of the budget of channel id's
// registrable domain ("" when it has none).
func budgetKey(id string) []byte {
	d := domain.Registrable(id)
	if d == "" {
		return nil
	}
	return []byte("budget " + d)
}

// budgetSpentTx reports whether the inter-site URL raw would make a new
// channel of a domain that made its budget.
func (d *DB) budgetSpentTx(tx kv.Tx, raw string) (bool, error) {
	if d.opts.DomainBudget < 0 {
		return false, nil
	}
	_, id, err := ParseSeed(raw)
	if err != nil {
		return false, nil // addSeedTx refuses it
	}
	k := budgetKey(id)
	if k == nil {
		return false, nil
	}
	var r budgetRecord
	if _, err := getJSON(tx.Bucket(bucketLimits), k, &r); err != nil {
		return false, err
	}
	if r.Created < d.opts.DomainBudget {
		return false, nil
	}
	exists, err := getJSON(channelsIn(tx), []byte(id), &Channel{})
	return !exists, err // a known channel only takes another seed
}

// spendBudgetTx counts a channel made for its domain (addSeedTx).
func spendBudgetTx(tx kv.Tx, id string) error {
	k := budgetKey(id)
	if k == nil {
		return nil
	}
	b := tx.Bucket(bucketLimits)
	var r budgetRecord
	if _, err := getJSON(b, k, &r); err != nil {
		return err
	}
	r.Created++
	return putJSON(b, k, &r)
}
