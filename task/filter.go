package task

import (
	"fmt"
	"math"
)

// Limits and defaults of a Filter.
const (
	// MaxFilterBytes bounds a filter's bit array: 192 KiB, 256 KiB once
	// base64-encoded in a task, whatever the host's size. At the default
	// rate it holds FilterCapacity(DefaultFalsePositive) ≈ 164,000
	// digests; a larger host is split into pieces by the manager, each
	// with its own filter.
	MaxFilterBytes = 192 << 10
	// MaxFilterK bounds the bit positions per digest; the optimum at a
	// 0.1 % rate is 10.
	MaxFilterK = 16
	// DefaultFalsePositive is the target false-positive rate the manager
	// sizes filters for.
	DefaultFalsePositive = 0.01
	// minFilterBytes is the smallest bit array NewFilter makes.
	minFilterBytes = 64
)

// Filter is a Bloom filter of content digests: a task's Pageseen in about
// 9.6 bits per known page at a 1 % false-positive rate, where a plain
// digest list takes about 11 bytes of JSON per page. It has no false
// negatives: a known digest is always found.
//
// A false positive only costs freshness, not correctness of what is
// stored: a page whose new content happens to test positive is taken as
// unchanged, so its text is not extracted or uploaded this round and the
// stored copy stays one round older. The next round's filter is built from
// other bit positions only if the page's digest changes again, so the
// manager keeps the rate low (DefaultFalsePositive) rather than relying on
// the next round.
//
// Bit positions are derived from the digest alone (double hashing over a
// 64-bit mix of it, see positions), so the encoding is part of the task's
// wire format: changing it needs a new field.
type Filter struct {
	// K is the number of bit positions set per digest, 1..MaxFilterK.
	K int `json:"k"`
	// Bits is the bit array of 8·len(Bits) bits, 1..MaxFilterBytes bytes;
	// bit i is Bits[i/8] & (1 << (i%8)). It encodes as base64.
	Bits []byte `json:"bits"`
}

// NewFilter returns an empty filter sized for n digests at false-positive
// rate fp (0 < fp < 1; other values take DefaultFalsePositive). The size is
// capped at MaxFilterBytes: past FilterCapacity(fp) digests the rate rises,
// so callers add at most that many (the manager picks which).
func NewFilter(n int, fp float64) *Filter {
	if !(fp > 0 && fp < 1) {
		fp = DefaultFalsePositive
	}
	n = max(n, 1)
	// m = −n·ln p / (ln 2)², k = (m/n)·ln 2.
	bits := math.Ceil(-float64(n) * math.Log(fp) / (math.Ln2 * math.Ln2))
	size := int(min(math.Ceil(bits/8), MaxFilterBytes))
	size = max(size, minFilterBytes)
	k := int(math.Round(float64(size*8) / float64(n) * math.Ln2))
	k = min(max(k, 1), MaxFilterK)
	return &Filter{K: k, Bits: make([]byte, size)}
}

// FilterCapacity returns how many digests the largest filter holds at
// false-positive rate fp.
func FilterCapacity(fp float64) int {
	if !(fp > 0 && fp < 1) {
		fp = DefaultFalsePositive
	}
	return int(float64(MaxFilterBytes*8) * math.Ln2 * math.Ln2 / -math.Log(fp))
}

// Add puts d in the filter.
func (f *Filter) Add(d Digest) {
	m := uint64(len(f.Bits)) * 8
	h1, h2 := positions(d)
	for i := range uint64(f.K) {
		b := (h1 + i*h2) % m
		f.Bits[b/8] |= 1 << (b % 8)
	}
}

// Has reports whether d may be in the filter: false means certainly not,
// true means yes or, at the filter's false-positive rate, a digest never
// added. A nil or empty filter holds nothing.
func (f *Filter) Has(d Digest) bool {
	if f == nil || len(f.Bits) == 0 {
		return false
	}
	m := uint64(len(f.Bits)) * 8
	h1, h2 := positions(d)
	for i := range uint64(f.K) {
		b := (h1 + i*h2) % m
		if f.Bits[b/8]&(1<<(b%8)) == 0 {
			return false
		}
	}
	return true
}

// Validate checks the filter's parameters, so a hostile task cannot make a
// crawler loop or index out of range.
func (f *Filter) Validate() error {
	switch {
	case f.K < 1 || f.K > MaxFilterK:
		return fmt.Errorf("%w: filter has %d hash functions, want 1..%d", ErrInvalid, f.K, MaxFilterK)
	case len(f.Bits) == 0 || len(f.Bits) > MaxFilterBytes:
		return fmt.Errorf("%w: filter of %d bytes, want 1..%d", ErrInvalid, len(f.Bits), MaxFilterBytes)
	}
	return nil
}

// positions returns the double-hashing base and step of d (Kirsch and
// Mitzenmacher: position i is h1 + i·h2 mod m). Digests are SHA-1
// prefixes, uniform already; the splitmix64 finaliser spreads their 32
// bits over two independent-looking halves. The step is odd, so it is
// never 0.
func positions(d Digest) (h1, h2 uint64) {
	x := uint64(d) + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return x & 0xffffffff, x>>32 | 1
}
