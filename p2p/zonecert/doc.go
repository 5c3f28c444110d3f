// Package zonecert is the manager's certificate for one zone of the CAN:
// the leaf's split path, its holder, the epoch and the expiry the
// manager's map (can.Map) gave it, signed with the manager's key. A peer
// owns a zone only while it holds an unexpired certificate for it whose
// epoch is the highest it has seen for that zone or any zone overlapping
// it; Book keeps that rule for one peer.
//
// The encoding is compact binary (about 120 bytes with an Ed25519 key and
// a path of a dozen splits) and is signed under its own domain string, so
// a signature made for a task or a receipt never verifies as a
// certificate.
//
// Caveats: a certificate does not carry the dimension of the space; peers
// know it from their configuration. Book is not safe for concurrent use.
// Expiry is judged by the caller's clock, so a peer whose clock runs
// behind the manager's keeps a certificate a little longer.
package zonecert
