package kv

import (
	"bytes"
	"errors"
)

// Store is a transactional store of named buckets.
type Store interface {
	// View runs fn in a read-only transaction.
	View(fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed when fn
	// returns nil and rolled back otherwise. fn may run more than once
	// (see the package documentation).
	Update(fn func(Tx) error) error
	// Close releases the store.
	Close() error
}

// Tx is one transaction.
type Tx interface {
	// Bucket returns the named bucket, which the store was opened with;
	// an unknown name panics, as it is a programming error.
	Bucket(name []byte) Bucket
}

// Bucket is a sorted map of byte keys to byte values.
type Bucket interface {
	// Get returns the value of key, nil when there is none.
	Get(key []byte) []byte
	// Put sets key, which must not be empty, to value.
	Put(key, value []byte) error
	// Delete removes key; a missing key is no error.
	Delete(key []byte) error
	// ForEach calls fn for every pair in key order, stopping at its first
	// error, which ForEach returns. fn may read and write the
	// transaction, but must not change this bucket.
	ForEach(fn func(key, value []byte) error) error
	// ForEachFrom is ForEach from the first key ≥ from on.
	ForEachFrom(from []byte, fn func(key, value []byte) error) error
	// Last returns the pair with the greatest key, nils when empty.
	Last() (key, value []byte)
}

// ForEachPrefix calls fn for every pair of b whose key starts with
// prefix, in key order, stopping at fn's first error, which it returns.
func ForEachPrefix(b Bucket, prefix []byte, fn func(key, value []byte) error) error {
	err := b.ForEachFrom(prefix, func(k, v []byte) error {
		if !bytes.HasPrefix(k, prefix) {
			return errPastPrefix
		}
		return fn(k, v)
	})
	if errors.Is(err, errPastPrefix) {
		return nil
	}
	return err
}

// errPastPrefix ends ForEachPrefix's scan at the first key past the
// prefix.
var errPastPrefix = errors.New("past the prefix")
