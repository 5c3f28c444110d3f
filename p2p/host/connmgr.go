package host

import (
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
)

// NeighbourTag is the connection-manager protection tag of CAN neighbours:
// a protected connection is never trimmed.
const NeighbourTag = "hivecrawl-can-neighbour"

// gracePeriod is how long a new connection is safe from trimming.
const gracePeriod = 20 * time.Second

func newConnManager(l Limits) (*connmgr.BasicConnMgr, error) {
	cm, err := connmgr.NewConnManager(l.LowWater, l.HighWater, connmgr.WithGracePeriod(gracePeriod))
	if err != nil {
		return nil, fmt.Errorf("connection manager: %w", err)
	}
	return cm, nil
}

// ProtectNeighbour keeps the connection to a CAN neighbour open whatever the
// connection manager's watermarks.
func (h *Host) ProtectNeighbour(id peer.ID) {
	h.ConnManager().Protect(id, NeighbourTag)
}

// UnprotectNeighbour lifts ProtectNeighbour once id is no longer a neighbour.
// It reports whether id is still protected under another tag.
func (h *Host) UnprotectNeighbour(id peer.ID) bool {
	return h.ConnManager().Unprotect(id, NeighbourTag)
}

// IsNeighbourProtected reports whether id is protected as a CAN neighbour.
func (h *Host) IsNeighbourProtected(id peer.ID) bool {
	return h.ConnManager().IsProtected(id, NeighbourTag)
}
