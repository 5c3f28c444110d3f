// Package entry is the entry protocol, as both ends speak it: how a
// volunteer gets its zone of the overlay from the manager's zone map,
// which every volunteer reaches through the network profile.
//
// Every request names an operation (Request.Op: join, move, renew, leave,
// report) and is answered with signed zone certificates (Answer.Certs),
// the addresses of the other holders they name (Answer.Peers), or why the
// operation was refused (Answer.Refused). Members renew every RenewEvery,
// stating their coordinate and capacity; what they hold is the map's to
// say, never theirs. The asker is always the stream's remote peer: nobody
// acts in another's name. Client makes the protocol a p2p/zonecert
// Authority for the volunteer's node; the manager's side is
// manager/members. The DHT rendezvous (p2p/host) remains the way peers
// find each other without the manager.
//
// Messages are varint-length-prefixed JSON (proto/frame), at most
// MaxMessageSize bytes.
package entry

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// Protocol is the libp2p protocol ID of entry requests.
const Protocol = "/hivecrawl/overlay/entry/1.0.0"

// Limits and timings of the protocol.
const (
	// MaxMessageSize bounds a request or an answer.
	MaxMessageSize = 64 << 10
	// RenewEvery is how often members renew their zones.
	RenewEvery = 10 * time.Second
	// Timeout bounds one exchange.
	Timeout = 10 * time.Second
)

// ErrMalformed is wrapped by every decoding failure.
var ErrMalformed = frame.ErrMalformed

// Request is what a peer sends.
type Request struct {
	// Coord is the member's network coordinate (milliseconds), for the
	// manager's swarm view and its placement of hosts.
	Coord []float64 `json:"coord,omitempty"`
	// CoordError is the coordinate's Vivaldi error (0 certain … 1.5
	// unknown) and Samples the round trips it rests on: the manager
	// trains the CAN space's bounds from settled coordinates only.
	CoordError float64 `json:"coord_error,omitempty"`
	Samples    int     `json:"samples,omitempty"`
	// Capacity is the member's min(download Mb/s, memory GB), the scale
	// of its load figures (design.md §5); it weighs the hashing baseline.
	Capacity float64 `json:"capacity,omitempty"`
	// Version is the asker's release (cmd/hivecrawl's version), which the
	// manager may hold against its minimum (Registry.SetAdmit).
	Version string `json:"version,omitempty"`
	// Op names an operation on the manager's zone map (OpJoin, OpMove,
	// OpRenew, OpLeave, OpReport). Every request names one.
	Op string `json:"op,omitempty"`
	// Point is where to join or move to, in [0,1] in each dimension of
	// the CAN space (OpJoin, OpMove).
	Point []float64 `json:"point,omitempty"`
	// Suspect is the peer ID of a neighbour that stopped answering
	// (OpReport).
	Suspect string `json:"suspect,omitempty"`
}

// Box is one zone, [Lo, Hi) in each dimension.
type Box struct {
	Lo []float64 `json:"lo"`
	Hi []float64 `json:"hi"`
}

// Limits on what a member reports.
const (
	maxVersion = 64
	maxDim     = 8
)

// Validate checks what a decoder cannot.
func (r *Request) Validate() error {
	if len(r.Version) > maxVersion {
		return fmt.Errorf("%w: version of %d bytes", ErrMalformed, len(r.Version))
	}
	if r.Capacity < 0 || !finite([]float64{r.Capacity}) {
		return fmt.Errorf("%w: capacity %v", ErrMalformed, r.Capacity)
	}
	if r.CoordError < 0 || r.Samples < 0 || !finite([]float64{r.CoordError}) {
		return fmt.Errorf("%w: coordinate error %v over %d samples", ErrMalformed, r.CoordError, r.Samples)
	}
	if len(r.Coord) > maxDim || !finite(r.Coord) {
		return fmt.Errorf("%w: coordinate %v", ErrMalformed, r.Coord)
	}
	return r.validateOp()
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Answer is the manager's reply.
type Answer struct {
	// Bounds is the manager-signed record of the CAN space's current
	// bounds (p2p/envelope.BoundsKind), when it has trained them.
	Bounds []byte `json:"bounds,omitempty"`
	// Outdated, when set, says why the asker may not take part: its
	// version is older than the network's minimum. It gets no
	// certificate, loses its zones and is no member; the text tells its
	// user how to update.
	Outdated string `json:"outdated,omitempty"`
	// Certs answer an operation: zone certificates (p2p/zonecert
	// encodings, signed with the manager's key), the asker's own first,
	// then its neighbours' and those of every other zone the operation
	// changed. The asker checks each (zonecert.Book) before it acts.
	Certs [][]byte `json:"certs,omitempty"`
	// Peers are the addresses of the other holders Certs name, as the
	// manager knows them, so that a joiner can dial its neighbours.
	Peers []Peer `json:"peers,omitempty"`
	// Refused says why an operation was refused (the Refused constants);
	// nothing changed then.
	Refused string `json:"refused,omitempty"`
}

// Peer is a holder's ID and addresses.
type Peer struct {
	ID    string   `json:"id"`
	Addrs []string `json:"addrs"`
}

// AddrInfo decodes p.
func (p Peer) AddrInfo() (peer.AddrInfo, error) {
	id, err := peer.Decode(p.ID)
	if err != nil {
		return peer.AddrInfo{}, fmt.Errorf("%w: peer ID: %v", ErrMalformed, err)
	}
	ai := peer.AddrInfo{ID: id}
	for _, s := range p.Addrs {
		a, err := ma.NewMultiaddr(s)
		if err != nil {
			return peer.AddrInfo{}, fmt.Errorf("%w: address %q: %v", ErrMalformed, s, err)
		}
		ai.Addrs = append(ai.Addrs, a)
	}
	return ai, nil
}

// Host is what the protocol needs from a libp2p host.
type Host interface {
	NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error)
	Network() network.Network
}

// Ask sends req to the manager and returns its answer.
func Ask(ctx context.Context, h Host, manager peer.ID, req Request) (Answer, error) {
	var a Answer
	if err := frame.Call(ctx, h, manager, Protocol, req, &a, MaxMessageSize, Timeout); err != nil {
		return Answer{}, fmt.Errorf("ask the manager for zones: %w", err)
	}
	return a, nil
}

// Decode reads one framed message into v, strictly.
func Decode(r *bufio.Reader, v any) error { return frame.Read(r, v, MaxMessageSize) }
