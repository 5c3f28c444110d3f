package crawler

import "hash/fnv"

// seenSet is URLseen: 64-bit FNV-1a hashes of the canonical URLs already
// discovered. At a million URLs the chance of any collision is about 3e-8,
// and a collision only skips one URL.
type seenSet map[uint64]struct{}

// newSeenSet returns a set sized for the expected number of pages.
func newSeenSet(expected int) seenSet {
	return make(seenSet, min(max(expected, 64), 1<<20))
}

// Add records u and reports whether it was new.
func (s seenSet) Add(u string) bool {
	h := fnv.New64a()
	_, _ = h.Write([]byte(u))
	k := h.Sum64()
	if _, ok := s[k]; ok {
		return false
	}
	s[k] = struct{}{}
	return true
}
