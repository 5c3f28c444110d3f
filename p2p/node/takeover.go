package node

import (
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/libp2p/go-libp2p/core/peer"
)

// claimWait is how many heartbeat intervals each heir rank waits for the
// ranks before it to claim a dead peer's zones.
const claimWait = 2

type candidate struct {
	id  peer.ID
	vol float64
}

// checkDead settles the zones of dead neighbours: claimed ones are
// forgotten; otherwise this node takes them over when its turn has come.
func (n *Node) checkDead(now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.zones) == 0 || n.leaving {
		// Not in the overlay (left, lost its zones, or between a drift's
		// leave and rejoin): no longer anyone's heir.
		clear(n.dead)
		return
	}
	took := false
	for id, d := range n.dead {
		rest := n.unclaimedLocked(id, d, true)
		if len(rest) == 0 {
			delete(n.dead, id)
			continue
		}
		if len(n.unclaimedLocked(id, d, false)) == 0 {
			// Claimed only by hearsay, which may be stale (the peer may
			// have lost the area since): wait until the claimant speaks
			// for itself or is dropped.
			continue
		}
		rank := n.rankLocked(id, d)
		wait := rank * claimWait
		if d.dropped {
			// Inferred from a live peer's word, not from silence: give
			// the peers that now hold parts of it a round to say so.
			wait++
		}
		if now.Sub(d.since) < time.Duration(wait)*n.cfg.Heartbeat {
			continue
		}
		// Only a peer next to an area takes it over: one that is not may
		// never hear of the peer that holds it now (the heir split it for
		// a joiner, say), and would claim it back. A part no heir yet
		// abuts waits until the parts around it are taken.
		take := slices.DeleteFunc(slices.Clone(rest), func(z can.Zone) bool { return !abutsAny([]can.Zone{z}, n.zones) })
		if len(take) == 0 {
			continue
		}
		n.zones = merge(append(n.zones, take...))
		n.stats.Takeovers++
		if len(take) == len(rest) {
			delete(n.dead, id)
		}
		for _, p := range d.nbrs {
			n.learnLocked(p, false)
		}
		n.pruneLocked()
		took = true
		n.log.Debug("Took over a dead neighbour's zones", "dead", id.String(), "rank", rank, "zones", len(n.zones), "took", fmt.Sprint(take))
	}
	if took {
		n.poke()
	}
}

// unclaimedLocked returns the parts of a dead peer's zones that neither we
// nor a live neighbour hold; with direct set, only neighbours heard from
// first-hand count. A partial claim (an heir that took one of several
// zones, or a zone since split) leaves the rest to be taken over.
// A peer that dropped its zones and rejoined counts for what it now holds.
func (n *Node) unclaimedLocked(dead peer.ID, d *deadPeer, direct bool) []can.Zone {
	rest := subtract(d.zones, n.zones)
	for id, nb := range n.nbrs {
		if len(rest) == 0 {
			break
		}
		if (id != dead || d.dropped) && (nb.direct || !direct) {
			rest = subtract(rest, nb.zones)
		}
	}
	return rest
}

// rankLocked returns this node's place among the dead peer's heirs: its
// neighbours as it last announced them and our own neighbours that abut its
// zones, smallest volume first (ties to the smaller ID), skipping peers we
// know are gone. Our own neighbours count too because the dead peer's list
// may be missing (it was known only second-hand) or lag a join.
func (n *Node) rankLocked(dead peer.ID, d *deadPeer) int {
	me := n.h.ID()
	cands := []candidate{}
	seen := map[peer.ID]bool{dead: true}
	for _, p := range d.nbrs {
		id, _ := peerAddrs(p)
		zones, ok := fromWireZones(p.Zones, n.cfg.Dim)
		if !ok || seen[id] || !abutsAny(zones, d.zones) {
			continue
		}
		if _, gone := n.gone[id]; gone {
			continue
		}
		if id == me {
			zones = n.zones
		}
		seen[id] = true
		cands = append(cands, candidate{id, volume(zones)})
	}
	for id, nb := range n.nbrs {
		if !seen[id] && abutsAny(nb.zones, d.zones) {
			seen[id] = true
			cands = append(cands, candidate{id, volume(nb.zones)})
		}
	}
	if !seen[me] {
		cands = append(cands, candidate{me, volume(n.zones)})
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.vol < b.vol:
			return -1
		case a.vol > b.vol:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	for i, c := range cands {
		if c.id == me {
			return i
		}
	}
	return len(cands)
}
