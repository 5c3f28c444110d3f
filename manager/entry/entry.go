// Package entry is how a volunteer finds its way into the overlay: it asks
// the manager, which every volunteer reaches through the network profile,
// for peers already in the overlay to join through. When the overlay is
// empty the manager names the asker its first peer; everyone who asks in
// the next moments is sent to that peer, so two volunteers starting at the
// same time never build two overlays that each cover the whole space.
//
// Peers tell the manager they are members (Request.Member) once they hold a
// zone, and repeat it every RenewEvery: the manager offers only members it
// is still connected to. The DHT rendezvous (p2p/host) remains the way
// peers find each other without the manager; this protocol settles the one
// decision that needs a single arbiter, who starts the overlay.
//
// A request naming an operation (Request.Op: join, move, renew, leave,
// report) is served by the manager's zone map (manager/zones, set with
// Registry.SetZones), the one authority of who holds which zone: the
// answer carries signed zone certificates (Answer.Certs), the addresses
// of the other holders they name (Answer.Peers), or why the operation was
// refused (Answer.Refused). The asker is always the stream's remote peer:
// nobody acts in another's name. A request without Op is answered as
// before (First, Entries), so clients that do not yet speak the
// operations keep working.
//
// Messages are varint-length-prefixed JSON, at most MaxMessageSize bytes.
package entry

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/hivecrawl/hivecrawl/manager/internal/frame"
	"github.com/hivecrawl/hivecrawl/manager/zones"
)

// Protocol is the libp2p protocol ID of entry requests.
const Protocol = "/hivecrawl/overlay/entry/1.0.0"

// Limits and timings of the protocol.
const (
	// MaxMessageSize bounds a request or an answer.
	MaxMessageSize = 64 << 10
	// MaxEntries bounds the entry peers in one answer.
	MaxEntries = 8
	// RenewEvery is how often members repeat that they are members (with
	// their zones, which the manager's swarm view draws).
	RenewEvery = 10 * time.Second
	// memberFor is how long a membership lasts without renewal.
	memberFor = 3 * RenewEvery
	// firstFor is how long a granted first peer is offered to others
	// before it has confirmed membership.
	firstFor = 30 * time.Second
	// timeout bounds one exchange.
	timeout = 10 * time.Second
	// natFirstWait is how long, after the first ask, the manager waits
	// for a volunteer that others can dial before it names one behind a
	// NAT the first peer (see behindNAT).
	natFirstWait = 30 * time.Second
	// identifyWait bounds how long a request waits for identify.
	identifyWait = 2 * time.Second
	// opWait bounds an operation, so that its answer is sent within
	// timeout: a report's liveness check takes up to 5 s.
	opWait = timeout - identifyWait - time.Second
)

// ErrMalformed is wrapped by every decoding failure.
var ErrMalformed = frame.ErrMalformed

// Request is what a peer sends.
type Request struct {
	// Member says the asker holds a zone of the overlay.
	Member bool `json:"member,omitempty"`
	// Zones and Coord describe a member's place, for the manager's swarm
	// view and its assignment baseline: its zones of the CAN space and
	// its network coordinate (milliseconds).
	Zones []Box     `json:"zones,omitempty"`
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
	// OpRenew, OpLeave, OpReport); empty for the membership requests
	// above. A renewal carries the fields above as a Member request does,
	// but the manager takes the zones from its map, not from Zones.
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
	maxZones   = 64
	maxDim     = 8
)

// Validate checks what a decoder cannot.
func (r *Request) Validate() error {
	if len(r.Version) > maxVersion {
		return fmt.Errorf("%w: version of %d bytes", ErrMalformed, len(r.Version))
	}
	if len(r.Zones) > maxZones {
		return fmt.Errorf("%w: %d zones, at most %d", ErrMalformed, len(r.Zones), maxZones)
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
	for _, z := range r.Zones {
		if len(z.Lo) == 0 || len(z.Lo) > maxDim || len(z.Hi) != len(z.Lo) || !finite(z.Lo) || !finite(z.Hi) {
			return fmt.Errorf("%w: zone %v", ErrMalformed, z)
		}
		for i := range z.Lo {
			if z.Lo[i] < 0 || z.Hi[i] > 1 || z.Lo[i] >= z.Hi[i] {
				return fmt.Errorf("%w: zone %v outside the unit box", ErrMalformed, z)
			}
		}
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

// Member is a member peer as it last reported itself.
type Member struct {
	ID         peer.ID
	Zones      []Box
	Coord      []float64
	CoordError float64
	Samples    int
	Capacity   float64
	Seen       time.Time
	// Addrs are where the member was reached, for another manager
	// sharing the database (Local, Merge).
	Addrs []string `json:",omitempty"`
	// Remote marks a member that renews with another manager.
	Remote bool `json:"-"`
}

// Answer is the manager's reply.
type Answer struct {
	// First tells the asker to start the overlay: no one else is in it.
	First bool `json:"first,omitempty"`
	// Entries are members to join through, in random order.
	Entries []Peer `json:"entries,omitempty"`
	// Bounds is the manager-signed record of the CAN space's current
	// bounds (p2p/envelope.BoundsKind), when it has trained them.
	Bounds []byte `json:"bounds,omitempty"`
	// Outdated, when set, says why the asker may not take part: its
	// version is older than the network's minimum. It names no entry
	// and is not counted a member; the text tells its user how to update.
	// An outdated peer gets no certificate and loses its zones.
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

// Peer is one entry peer.
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

// RegistryHost is what the manager's side needs from a libp2p host: a
// Host, and a wait for libp2p's identify exchange on a connection (which
// brings the peer's announced addresses, see behindNAT).
type RegistryHost interface {
	Host
	IdentifyWait(network.Conn) <-chan struct{}
}

// Registry is the manager's side: it remembers members and the first
// peer granted. Safe for concurrent use.
type Registry struct {
	h   RegistryHost
	now func() time.Time

	mu      sync.Mutex // guards the fields below
	members map[peer.ID]*Member
	first   peer.ID
	firstAt time.Time
	hold    time.Time // no first peer is named before it
	asked   time.Time // first ask while the overlay was empty; zero once it is not
	rand    *rand.Rand
	bounds  []byte // the signed bounds every answer carries
	// admit, when set, returns why a peer stating a version may not take
	// part ("" when it may).
	admit func(version string) string
	// zones serves operations (Request.Op); nil refuses them.
	zones *zones.Authority
}

// NewRegistry returns a Registry for h's peers; now is the clock.
func NewRegistry(h RegistryHost, now func() time.Time, r *rand.Rand) *Registry {
	return &Registry{h: h, now: now, rand: r, members: map[peer.ID]*Member{}}
}

// HoldFirst makes the registry name no first peer before until. A manager
// restarted under a running overlay knows none of its members until they
// renew (within RenewEvery); a volunteer asking before then is told to ask
// again rather than to start a second overlay beside the first.
func (r *Registry) HoldFirst(until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = until
}

// SetBounds makes every answer carry b, the manager-signed record of the
// CAN space's bounds.
func (r *Registry) SetBounds(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bounds = b
}

// SetAdmit makes the registry ask admit about every asker's stated
// version: an asker it gives a reason is answered with that reason
// (Answer.Outdated), no entry, and no membership.
func (r *Registry) SetAdmit(admit func(version string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.admit = admit
}

// Members returns the peers whose membership is current and who are
// connected.
func (r *Registry) Members() []peer.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.liveLocked(r.now(), "")
}

// MemberInfos returns the current, connected members as they last
// reported themselves, in no particular order.
func (r *Registry) MemberInfos() []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := r.liveLocked(r.now(), "")
	out := make([]Member, len(ids))
	for i, id := range ids {
		out[i] = *r.members[id]
	}
	return out
}

// Reported returns every member whose membership has not lapsed, as it
// last reported itself, whether or not it is connected right now: a
// connection the manager or the member closed for a while does not end a
// membership.
func (r *Registry) Reported() []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(r.now())
	out := make([]Member, 0, len(r.members))
	for _, m := range r.members {
		out = append(out, *m)
	}
	return out
}

// pruneLocked forgets the members whose membership lapsed at now.
func (r *Registry) pruneLocked(now time.Time) {
	for id, m := range r.members {
		if now.Sub(m.Seen) > memberFor {
			delete(r.members, id)
		}
	}
}

// liveLocked returns the current members, except one: those connected
// to this manager, and those another manager sharing the database heard
// from (Merge).
func (r *Registry) liveLocked(now time.Time, except peer.ID) []peer.ID {
	r.pruneLocked(now)
	var out []peer.ID
	for id, m := range r.members {
		if id != except && (m.Remote || r.h.Network().Connectedness(id) == network.Connected) {
			out = append(out, id)
		}
	}
	return out
}

// Local returns the members that renewed with this manager since since,
// with the addresses they listen on: what another manager sharing the
// database learns from it. A member whose addresses this manager has not
// learnt yet (libp2p's identify exchange follows the connection) is left
// for a later call: its next renewal is after since.
func (r *Registry) Local(since time.Time) []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := r.h.Network().Peerstore()
	var out []Member
	for id, m := range r.members {
		if m.Remote || !m.Seen.After(since) {
			continue
		}
		c := *m
		c.Addrs = nil
		for _, a := range ps.Addrs(id) {
			c.Addrs = append(c.Addrs, a.String())
		}
		if len(c.Addrs) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Merge adds the members other managers sharing the database heard from,
// unless one renewed with this manager more recently; their addresses
// go to the peerstore for as long as a membership lasts.
func (r *Registry) Merge(ms []Member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := r.h.Network().Peerstore()
	for _, m := range ms {
		if have, ok := r.members[m.ID]; ok && !have.Seen.Before(m.Seen) {
			continue
		}
		var addrs []ma.Multiaddr
		for _, s := range m.Addrs {
			if a, err := ma.NewMultiaddr(s); err == nil {
				addrs = append(addrs, a)
			}
		}
		ps.AddAddrs(m.ID, addrs, memberFor)
		m.Remote = true
		r.members[m.ID] = &m
	}
}

// Answer decides what from, asking with req, is told.
func (r *Registry) Answer(from peer.ID, req Request) Answer {
	return r.AnswerContext(context.Background(), from, req)
}

// AnswerContext is Answer, with ctx bounding what an operation waits for
// (a report's liveness check).
func (r *Registry) AnswerContext(ctx context.Context, from peer.ID, req Request) Answer {
	if req.Op != "" {
		a := r.answerOp(ctx, from, req)
		r.mu.Lock()
		a.Bounds = r.bounds
		r.mu.Unlock()
		return a
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.answerLocked(now, from, req)
	a.Bounds = r.bounds
	return a
}

func (r *Registry) answerLocked(now time.Time, from peer.ID, req Request) Answer {
	if r.admit != nil {
		if why := r.admit(req.Version); why != "" {
			delete(r.members, from)
			if from == r.first {
				r.first = ""
			}
			return Answer{Outdated: why}
		}
	}
	if req.Member {
		r.members[from] = &Member{ID: from, Zones: req.Zones, Coord: req.Coord, CoordError: req.CoordError, Samples: req.Samples,
			Capacity: req.Capacity, Seen: now}
		if from == r.first {
			r.first = ""
		}
	}
	live := r.liveLocked(now, from)
	if len(live) == 0 && r.first != "" && r.first != from && now.Sub(r.firstAt) < firstFor &&
		r.h.Network().Connectedness(r.first) == network.Connected {
		live = []peer.ID{r.first}
	}
	if len(live) == 0 {
		if req.Member || now.Before(r.hold) {
			return Answer{}
		}
		// A first peer behind a NAT is an entry nobody can dial until a
		// relay serves it, and AutoNAT, which starts the relay client,
		// needs several reachable peers to ask: with the overlay's only
		// member behind it, nobody joins. So for a while one that
		// others can dial is waited for; when none asks, the overlay
		// starts behind the NAT all the same.
		if r.asked.IsZero() {
			r.asked = now
		}
		if now.Sub(r.asked) < natFirstWait && r.behindNAT(from) {
			return Answer{}
		}
		r.first, r.firstAt = from, now
		return Answer{First: true}
	}
	r.asked = time.Time{}
	r.rand.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	// Peers others can dial first: a joiner tries the entries in order.
	var dialable, natted []peer.ID
	for _, id := range live {
		if len(dialable) == MaxEntries {
			break
		}
		if r.behindNAT(id) {
			natted = append(natted, id)
		} else {
			dialable = append(dialable, id)
		}
	}
	live = append(dialable, natted...)
	a := Answer{}
	ps := r.h.Network().Peerstore()
	for _, id := range live[:min(len(live), MaxEntries)] {
		p := Peer{ID: id.String()}
		for _, addr := range ps.Addrs(id) {
			p.Addrs = append(p.Addrs, addr.String())
		}
		a.Entries = append(a.Entries, p)
	}
	return a
}

// identified reports whether identify has been taken in on one of conns.
func (r *Registry) identified(conns []network.Conn) bool {
	for _, c := range conns {
		select {
		case <-r.h.IdentifyWait(c):
			return true
		default:
		}
	}
	return false
}

// behindNAT reports whether peer id is known to sit behind a NAT: identify
// has run, and none of its connections to the manager comes directly from
// an address it announces. That covers a peer that announces no address
// the manager keeps: libp2p drops the private addresses a peer announces
// over a public connection, and a peer behind a home router has only
// those. A relayed connection never counts as direct. A peer not yet
// identified is not known to be.
func (r *Registry) behindNAT(id peer.ID) bool {
	conns := r.h.Network().ConnsToPeer(id)
	if !r.identified(conns) {
		return false
	}
	announced := map[string]bool{}
	for _, a := range r.h.Network().Peerstore().Addrs(id) {
		if ip, err := manet.ToIP(a); err == nil {
			announced[ip.String()] = true
		}
	}
	for _, c := range conns {
		if ip, err := manet.ToIP(c.RemoteMultiaddr()); err == nil && announced[ip.String()] {
			return false
		}
	}
	return true
}

// Handle serves one entry stream; register it with
// h.SetStreamHandler(entry.Protocol, r.Handle).
func (r *Registry) Handle(s network.Stream) { r.HandleThen(s, nil) }

// HandleThen is Handle that runs answered, when not nil, after the
// registry took the request in and before the answer is sent: what it
// records is on disk by the time the asker hears back.
func (r *Registry) HandleThen(s network.Stream, answered func()) {
	defer s.Close()
	s.SetDeadline(time.Now().Add(timeout))
	br := bufio.NewReader(s)
	var req Request
	if err := Decode(br, &req); err != nil || req.Validate() != nil {
		s.Reset()
		return
	}
	// Identify runs beside the first request on a new connection, and
	// behindNAT judges by the addresses it brings.
	select {
	case <-r.h.IdentifyWait(s.Conn()):
	case <-time.After(identifyWait):
	}
	ctx, cancel := context.WithTimeout(context.Background(), opWait)
	defer cancel()
	a := r.AnswerContext(ctx, s.Conn().RemotePeer(), req)
	if answered != nil {
		answered()
	}
	if err := write(s, a); err != nil {
		s.Reset()
	}
}

// Ask sends req to the manager and returns its answer.
func Ask(ctx context.Context, h Host, manager peer.ID, req Request) (Answer, error) {
	var a Answer
	if err := frame.Call(ctx, h, manager, Protocol, req, &a, MaxMessageSize, timeout); err != nil {
		return Answer{}, fmt.Errorf("ask manager for an entry: %w", err)
	}
	if len(a.Entries) > MaxEntries {
		return Answer{}, fmt.Errorf("ask manager for an entry: %w: %d entries", ErrMalformed, len(a.Entries))
	}
	return a, nil
}

func write(w io.Writer, v any) error { return frame.Write(w, v, MaxMessageSize) }

// Decode reads one framed message into v, strictly.
func Decode(r *bufio.Reader, v any) error { return frame.Read(r, v, MaxMessageSize) }
