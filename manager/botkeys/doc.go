// Package botkeys is the manager's registry of the volunteers' Web Bot
// Auth keys (DESIGN §8): the Ed25519 keys the operator certified to sign
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
// The registry is a bbolt file in the directory given to Open; every change
// is one transaction, so a manager killed at any point loses no
// certification or withdrawal. Records are kept after withdrawal, so
// Status can say when and why a key went.
//
// Caveat: the directory lists every live key and is read from the file on
// every request; that suits up to some 10⁴ volunteers, and sites cache it.
package botkeys
