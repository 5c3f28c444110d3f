package kv

import "errors"

// ErrClosed is returned by a transaction on a closed store.
var ErrClosed = errors.New("store closed")

// ErrNewerSchema is returned by OpenPostgres when the database was
// migrated by a newer Hivecrawl than this one.
var ErrNewerSchema = errors.New("database schema is newer than this program")
