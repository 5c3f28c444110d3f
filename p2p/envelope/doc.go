// Package envelope signs and verifies the records that cross the overlay:
// crawl tasks signed by the manager (design.md §2, §8) and, in the same way,
// credit receipts signed by the storage module. It uses go-libp2p's signed
// envelopes (core/record): a payload, a payload type, the signer's public
// key and a signature over a domain string, the payload type and the
// payload, so a signature made for one kind of record never verifies as
// another.
//
// Open (and OpenRecord for other kinds) checks, in order: that the bytes
// are an envelope at all (ErrUnsigned), that the signer is the expected key
// (ErrForged), that the signature covers these exact bytes for this domain
// (ErrAltered), that the payload type is the expected one (ErrWrongType),
// and only then decodes the payload (ErrInvalidPayload). A payload is never parsed before its signature is
// checked.
package envelope
