package channels

import (
	"bytes"
	"fmt"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// bucketRoster holds who is in the network, for the managers that share
// the database: each one's heartbeat and the overlay members it knows.
var bucketRoster = []byte("roster") // key → JSON

// PutRoster stores each value of entries as JSON under its key, and
// deletes the keys whose value is nil, in one transaction.
func (d *DB) PutRoster(entries map[string]any) error {
	err := d.db.Update(func(tx kv.Tx) error {
		b := tx.Bucket(bucketRoster)
		for k, v := range entries {
			if v == nil {
				if err := b.Delete([]byte(k)); err != nil {
					return err
				}
				continue
			}
			if err := putJSON(b, []byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update the roster: %w", err)
	}
	return nil
}

// Roster calls fn with the key and JSON value of every roster entry whose
// key starts with prefix.
func (d *DB) Roster(prefix string, fn func(key string, value []byte) error) error {
	err := d.db.View(func(tx kv.Tx) error {
		return kv.ForEachPrefix(tx.Bucket(bucketRoster), []byte(prefix), func(k, v []byte) error {
			return fn(string(k), bytes.Clone(v))
		})
	})
	if err != nil {
		return fmt.Errorf("read the roster: %w", err)
	}
	return nil
}
