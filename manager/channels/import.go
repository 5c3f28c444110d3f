package channels

import (
	"encoding/json"
	"fmt"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Import stores whole channel records in one transaction, for loading
// many at once (AddSeeds reads each host's record first, a round trip
// each on PostgreSQL). Their IDs must be new and their indexes must
// continue the database's: the first is Count(), the next one more.
func (d *DB) Import(chs []Channel) error {
	err := d.db.Update(func(tx kv.Tx) error {
		b, idx := channelsIn(tx), tx.Bucket(bucketIndex)
		n := countIndex(idx)
		for i, c := range chs {
			if c.Index != n+i || c.ID == "" {
				return fmt.Errorf("channel %q has index %d, want %d", c.ID, c.Index, n+i)
			}
			if err := idx.Put(indexKey(c.Index), []byte(c.ID)); err != nil {
				return err
			}
			data, err := json.Marshal(&c)
			if err != nil {
				return err
			}
			if err := b.putKnown([]byte(c.ID), nil, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("import %d channels: %w", len(chs), err)
	}
	return nil
}
