package node

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// driftMaxError is the Vivaldi error (0 certain … 1.5 unknown) above which
// a coordinate is too young to move for: a new peer's coordinate starts at
// the origin and would send every newcomer to the same point.
const driftMaxError = 0.5

// Drifted reports whether the node's mapped coordinate lies further than
// its zone's diagonal from the zone's centre (with several zones, from each
// of them), and the point it would rejoin at. Without Config.Bounds, or
// while Vivaldi's error is above driftMaxError, it never drifts.
func (n *Node) Drifted() (bool, []float64) {
	if n.cfg.Bounds == nil {
		return false, nil
	}
	c := n.viv.Coord()
	if c.Error > driftMaxError {
		return false, nil
	}
	p := n.cfg.Bounds.Map(c)
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.zones) == 0 || n.leaving {
		return false, nil
	}
	for _, z := range n.zones {
		if !z.Drifted(p) {
			return false, nil
		}
	}
	return true, p
}

// checkDrift leaves and rejoins at the new point when the node drifted.
func (n *Node) checkDrift(ctx context.Context) error {
	drifted, p := n.Drifted()
	if !drifted {
		return nil
	}
	n.mu.Lock()
	var entry peer.AddrInfo
	for id, nb := range n.nbrs {
		if nb.direct {
			entry = peer.AddrInfo{ID: id, Addrs: n.h.Peerstore().Addrs(id)}
			break
		}
	}
	n.mu.Unlock()
	if entry.ID == "" {
		return nil // alone: nowhere to rejoin through, and nothing to gain
	}
	n.log.Info("Coordinate drifted from the zone; rejoining", "point", fmt.Sprint(p))
	if err := n.Leave(ctx); err != nil {
		return fmt.Errorf("rejoin: %w", err)
	}
	n.mu.Lock()
	n.leaving = false
	n.farewell = nil
	n.zones = nil
	for id := range n.nbrs {
		n.removeLocked(id)
	}
	n.cfg.Point = p
	n.mu.Unlock()
	if err := n.Join(ctx, entry); err != nil {
		return fmt.Errorf("rejoin: %w", err)
	}
	return nil
}
