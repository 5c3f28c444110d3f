package placement

import (
	"cmp"
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/hashring"
)

// HashOwner is the consistent-hashing assignment, the baseline the CAN
// is measured against (paper 004, UbiCrawler): hostPort goes to a member
// of ms by a ring of their peer IDs weighted by their reported capacity
// (1 when they report none), at the centre of its first zone so that the
// member queues the task itself. Members without a zone are left out;
// ok is false when none is left.
func HashOwner(ms []members.Member, hostPort string) (id peer.ID, at can.Point, ok bool) {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b members.Member) int { return cmp.Compare(a.ID, b.ID) })
	ring := hashring.New(0)
	byID := map[can.PeerID]members.Member{}
	for _, mb := range ms {
		if len(mb.Zones) == 0 {
			continue
		}
		w := mb.Capacity
		if w <= 0 {
			w = 1
		}
		if err := ring.Add(can.PeerID(mb.ID), w); err != nil {
			continue
		}
		byID[can.PeerID(mb.ID)] = mb
	}
	owner, ok := ring.Owner(hostPort)
	if !ok {
		return "", nil, false
	}
	z := byID[owner].Zones[0]
	return peer.ID(owner), can.Zone{Lo: z.Lo, Hi: z.Hi}.Centre(), true
}
