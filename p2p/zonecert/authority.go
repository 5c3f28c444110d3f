package zonecert

import (
	"context"
	"errors"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Authority is the manager's map of zones as one peer reaches it: the one
// party that decides who holds what (docs/developer/overlay.md). The client
// implements it over the manager's entry protocol (proto/entry); tests
// run a can.Map in process (p2p/node/nodetest). Calls may block on the
// network for a while.
type Authority interface {
	// Zones asks for an operation on the asking peer's place in the map
	// and returns the manager's grant. An error wrapping ErrRejoin says
	// the manager holds no zone for the peer (it expired, or was never
	// granted): join again.
	Zones(ctx context.Context, req Request) (Grant, error)
}

// Op is what a peer asks of the manager's map.
type Op string

// Operations on the map.
const (
	// OpJoin places the peer at Request.Point: the zone holding the point
	// is split and the peer given the half holding it. A peer that holds
	// zones already is moved there.
	OpJoin Op = "join"
	// OpMove is a leave and a join in one step.
	OpMove Op = "move"
	// OpRenew extends the peer's certificates; their epochs stay.
	OpRenew Op = "renew"
	// OpLeave gives the peer's zones to their heirs.
	OpLeave Op = "leave"
	// OpReport says that the neighbour Request.Suspect stopped answering
	// heartbeats. The manager checks and decides; a neighbour that
	// answers it keeps its zones.
	OpReport Op = "report"
)

// Request is one request to the Authority.
type Request struct {
	Op      Op
	Point   can.Point // OpJoin, OpMove
	Suspect peer.ID   // OpReport
}

// Grant is the manager's answer: certificates of the asker's zones, its
// neighbours' and any other zone the operation changed, with the addresses
// of their holders as the manager knows them.
type Grant struct {
	Certs []Cert
	Peers []peer.AddrInfo
}

// ErrRejoin is wrapped by an Authority's error when the manager holds no
// zone for the asking peer.
var ErrRejoin = errors.New("the manager holds no zone for this peer; join again")

// ErrTooDeep is wrapped by an Authority's error for a join or move at a
// point whose zone is split as far as the map keeps exact (many peers at
// one point): the peer joins at another point.
var ErrTooDeep = errors.New("the zone at that point cannot be split further; join at another point")
