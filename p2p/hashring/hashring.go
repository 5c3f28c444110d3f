// Package hashring is the baseline assignment Hivecrawl is compared against
// (paper 004, UbiCrawler; paper 002's "DHT" scheme): identifier-seeded
// consistent hashing of host names onto peers, weighted by capacity.
//
// Every peer puts round(capacity × ReplicasPerUnit) points (at least one) on
// a 64-bit ring; their positions come from a random generator seeded with
// the peer's identifier, so every party computes the same ring from the
// same membership. A host belongs to the peer owning the first point at or
// after the first 8 bytes of SHA-1(host name), wrapping round. Removing a
// peer moves only the hosts it held; adding one moves hosts only to it; a
// peer's share of hosts tracks its share of capacity.
//
// The package is pure (no clock, no global randomness, no I/O) and not safe
// for concurrent use; a Ring has one owner.
package hashring

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// DefaultReplicasPerUnit is how many ring points one unit of capacity gets
// unless configured: enough for shares within a few per cent of capacity.
const DefaultReplicasPerUnit = 200

// ErrBadCapacity is returned by Add for a capacity that is not positive and
// finite.
var ErrBadCapacity = errors.New("hashring: capacity must be positive and finite")

// Ring is a capacity-weighted consistent-hashing ring.
type Ring struct {
	perUnit  int
	points   []point // sorted by pos, then peer
	capacity map[can.PeerID]float64
}

type point struct {
	pos  uint64
	peer can.PeerID
}

// New returns an empty ring giving perUnit points per unit of capacity
// (perUnit ≤ 0 means DefaultReplicasPerUnit).
func New(perUnit int) *Ring {
	if perUnit <= 0 {
		perUnit = DefaultReplicasPerUnit
	}
	return &Ring{perUnit: perUnit, capacity: make(map[can.PeerID]float64)}
}

// Len returns the number of peers.
func (r *Ring) Len() int { return len(r.capacity) }

// Add puts peer id with the given capacity (for example min(BW_download,
// S_memory), as in paper 002) on the ring, replacing its points if it was
// already there.
func (r *Ring) Add(id can.PeerID, capacity float64) error {
	if !(capacity > 0) || math.IsInf(capacity, 0) {
		return fmt.Errorf("add %s with capacity %v: %w", id, capacity, ErrBadCapacity)
	}
	r.Remove(id)
	n := max(1, int(math.Round(capacity*float64(r.perUnit))))
	h := fnv.New64a()
	h.Write([]byte(id))
	seed := h.Sum64()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	add := make([]point, n)
	for i := range add {
		add[i] = point{pos: rng.Uint64(), peer: id}
	}
	slices.SortFunc(add, comparePoints)
	// Merge from the back into the grown slice: one pass over the ring,
	// where sorting it all again made building a ring of n peers take
	// O(n² log n) (minutes at 10,000 peers).
	old := len(r.points)
	r.points = slices.Grow(r.points, n)[:old+n]
	i, j := old-1, n-1
	for k := old + n - 1; j >= 0; k-- {
		if i >= 0 && comparePoints(r.points[i], add[j]) > 0 {
			r.points[k] = r.points[i]
			i--
		} else {
			r.points[k] = add[j]
			j--
		}
	}
	r.capacity[id] = capacity
	return nil
}

func comparePoints(a, b point) int {
	switch {
	case a.pos < b.pos:
		return -1
	case a.pos > b.pos:
		return 1
	}
	return strings.Compare(string(a.peer), string(b.peer))
}

// Remove takes peer id off the ring; its hosts go to the peers owning the
// next points. Removing an absent peer does nothing.
func (r *Ring) Remove(id can.PeerID) {
	if _, ok := r.capacity[id]; !ok {
		return
	}
	delete(r.capacity, id)
	r.points = slices.DeleteFunc(r.points, func(p point) bool { return p.peer == id })
}

// Owner returns the peer responsible for host; ok is false on an empty ring.
// Host names are compared as given: callers lower-case them first.
func (r *Ring) Owner(host string) (id can.PeerID, ok bool) {
	if len(r.points) == 0 {
		return "", false
	}
	sum := sha1.Sum([]byte(host))
	key := binary.BigEndian.Uint64(sum[:8])
	i, _ := slices.BinarySearchFunc(r.points, key, func(p point, k uint64) int {
		switch {
		case p.pos < k:
			return -1
		case p.pos > k:
			return 1
		}
		return 0
	})
	if i == len(r.points) {
		i = 0
	}
	return r.points[i].peer, true
}
