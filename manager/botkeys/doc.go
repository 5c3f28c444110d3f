// Package botkeys is the manager's registry of the volunteers' Web Bot
// Auth keys (design.md §8): the Ed25519 keys the operator certified to sign
// crawl requests, and the key directory sites verify them against.
//
// Certify records a volunteer's key under its peer ID; Withdraw takes a key
// (or all keys of a peer) out of the directory for good, because the
// volunteer left or cheated, so requests signed with it stop verifying once
// sites refresh the directory (Handler serves it with max-age=60). A peer
// has at most one live key: certifying a new one withdraws the older one
// (reason "superseded"). A withdrawn key is never certified again; the
// volunteer must make a new key.
//
// The registry is a kv.Store: the bbolt file FileName in the manager's
// directory, or, for managers sharing a PostgreSQL database, the table
// PostgresTable in it, so that every manager of that database certifies
// and withdraws the same keys. Every change is one transaction, so a
// manager killed at any point loses no certification or withdrawal.
// Records are kept after withdrawal, so Status can say when and why a key
// went. A manager that moves to PostgreSQL imports its FileName on Open
// (withdrawals win over live keys, whichever side made them) and keeps the
// file renamed with ImportedSuffix.
//
// How fresh: PeerWithdrawn and Status read the store on every call, so a
// withdrawal made by another manager counts at the next lease request.
// Directory reads the store at most every DirectoryRefresh (2 s), as
// reading 10⁴ keys from PostgreSQL takes some 80 ms (BenchmarkPostgres): a
// withdrawal made elsewhere leaves this manager's directory within
// DirectoryRefresh, one made through the same Registry at once. Sites may
// cache the directory CacheMaxAge more.
//
// Caveat: the directory lists every live key and is read whole; that
// suits up to some 10⁴ volunteers.
package botkeys
