package task

import (
	"crypto/sha1"
	"encoding/binary"
)

// Digest is the first 32 bits of a SHA-1, as paper 000 keeps for Pageseen
// and for inter-site URLs: small enough that a task carries thousands.
type Digest uint32

// DigestOf returns the digest of content: a page's body as the crawler
// downloaded it (after Content-Encoding is undone, before any extraction,
// so an unchanged page is recognised without extracting its text), or a
// URL's canonical form.
func DigestOf(content []byte) Digest {
	sum := sha1.Sum(content)
	return Digest(binary.BigEndian.Uint32(sum[:4]))
}

// DigestString returns the digest of s.
func DigestString(s string) Digest {
	return DigestOf([]byte(s))
}

// DigestSet is a set of digests.
type DigestSet map[Digest]struct{}

// NewDigestSet returns a set holding ds.
func NewDigestSet(ds []Digest) DigestSet {
	s := make(DigestSet, len(ds))
	for _, d := range ds {
		s[d] = struct{}{}
	}
	return s
}

// Has reports whether d is in the set.
func (s DigestSet) Has(d Digest) bool {
	_, ok := s[d]
	return ok
}
