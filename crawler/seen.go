package crawler

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
	k := fnv64a(u)
	if _, ok := s[k]; ok {
		return false
	}
	s[k] = struct{}{}
	return true
}

// Has reports whether u was added.
func (s seenSet) Has(u string) bool {
	_, ok := s[fnv64a(u)]
	return ok
}

// fnv64a is FNV-1a over a string without allocating.
func fnv64a(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}
