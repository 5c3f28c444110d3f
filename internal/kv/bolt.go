package kv

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
)

// Bolt is a Store in a bbolt file.
type Bolt struct{ db *bolt.DB }

var _ Store = (*Bolt)(nil)

// OpenBolt opens (creating if needed) the bbolt file at path through
// boltfile.Open, with opts and p, and creates the named buckets unless it
// is read-only.
func OpenBolt(path string, opts *bolt.Options, p boltfile.Policy, buckets ...[]byte) (*Bolt, error) {
	db, err := boltfile.Open(path, opts, p)
	if err != nil {
		return nil, err // boltfile.Open names the file
	}
	if opts != nil && opts.ReadOnly {
		return &Bolt{db: db}, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s %s: %w", p.Name, path, err)
	}
	return &Bolt{db: db}, nil
}

// View implements Store.
func (b *Bolt) View(fn func(Tx) error) error {
	return b.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

// Update implements Store; fn runs once.
func (b *Bolt) Update(fn func(Tx) error) error {
	return b.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

// Close closes the file.
func (b *Bolt) Close() error { return b.db.Close() }

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Bucket(name []byte) Bucket {
	if b := t.tx.Bucket(name); b != nil {
		return boltBucket{b}
	}
	// A file opened read-only before this bucket existed.
	return emptyBucket{}
}

type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) Get(key []byte) []byte                          { return b.b.Get(key) }
func (b boltBucket) Put(key, value []byte) error                    { return b.b.Put(key, value) }
func (b boltBucket) Delete(key []byte) error                        { return b.b.Delete(key) }
func (b boltBucket) ForEach(fn func(key, value []byte) error) error { return b.b.ForEach(fn) }
func (b boltBucket) ForEachFrom(from []byte, fn func(key, value []byte) error) error {
	c := b.b.Cursor()
	for k, v := c.Seek(from); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}
func (b boltBucket) Last() (key, value []byte) { return b.b.Cursor().Last() }

// emptyBucket is a bucket missing from a read-only file.
type emptyBucket struct{}

func (emptyBucket) Get([]byte) []byte                                    { return nil }
func (emptyBucket) Put([]byte, []byte) error                             { return bolt.ErrTxNotWritable }
func (emptyBucket) Delete([]byte) error                                  { return bolt.ErrTxNotWritable }
func (emptyBucket) ForEach(func([]byte, []byte) error) error             { return nil }
func (emptyBucket) ForEachFrom([]byte, func([]byte, []byte) error) error { return nil }
func (emptyBucket) Last() ([]byte, []byte)                               { return nil, nil }
