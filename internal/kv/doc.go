// Package kv is the manager's transactional store: named buckets of keys
// and values, read in View and written in Update transactions, as bbolt
// offers them. Two stores implement it:
//
//   - Bolt, a bbolt file: the embedded default, for solo mode and a
//     network with one manager.
//   - Postgres, a PostgreSQL database that several managers share. Each
//     store is one table of (bucket, key, value) rows; transactions are
//     SERIALIZABLE, so whatever two managers do at once has the effect of
//     one after the other.
//
// Caveats:
//
//   - Postgres runs an Update's function again when the database aborts
//     its transaction for a conflict with a concurrent one. The function
//     must therefore have no effect outside the transaction before it
//     returns, and must set (not append to) whatever it hands back.
//   - Bucket.Get has no error result, as bbolt's has none. A Postgres read
//     that fails marks its transaction failed: Get returns nil, and View or
//     Update returns the error.
//   - Values and keys handed out are valid only inside the transaction.
package kv
