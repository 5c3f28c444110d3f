// Package submit sends the manager's signed tasks into the overlay (design.md
// §2 steps 2–3): each task goes to a random entry peer of the overlay over
// the CAN insert protocol (p2p/wire.InsertProtocol), aimed at the point of
// the task's web host in the CAN space; the entry peer routes it to the
// owner of that point, which applies load balancing on insert.
//
// The host's point comes from a Locator (the GNP-style solve from peers'
// RTT measurements, p2p/rtt.Locator) and is cached per host; the cache is
// renewed at each resubmission and kept when locating fails. Without a
// Locator, or before the first successful solve, the point is a hash of
// the host name (can.HashPoint), so tasks still spread over the space.
//
// The manager sets a Locator when coordinate-aware placement is on
// (manager.Options.Placement.Bounds, the default of `hivecrawl manager`): member
// peers measure the host and the solve is mapped through the manager's
// bounds, trained from the members' coordinates once they settle. With Options.Direct (the
// consistent-hashing baseline) a task goes straight to the peer that
// takes its host, with no CAN routing and no load balancing.
//
// A host's tasks wait for its first successful solve (Ready) for at most
// PlaceWait, so that a new swarm's first round is placed, not hashed;
// after that they go to its hash point, which need not lie near the peers
// closest to the host.
package submit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// ErrNoEntryPeer is returned when no overlay peer is connected to take a
// task.
var ErrNoEntryPeer = errors.New("no overlay peer connected to take tasks")

// ErrUncertain is returned when a task was sent but no answer came back
// (the stream broke or timed out): the overlay may have queued it. Submit
// then tries no other entry peer, and the caller should not send it again
// either: a second copy could land on another peer (load balancing picks
// by load), and two crawlers would work on one host.
var ErrUncertain = errors.New("sent without an answer: the task may be queued")

// Locator computes a web host's point in the CAN space.
type Locator interface {
	Locate(ctx context.Context, hostPort string) (can.Point, error)
}

// Host is what the Submitter needs from the manager's libp2p host.
type Host interface {
	NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error)
	Network() network.Network
}

// Options configure a Submitter.
type Options struct {
	// Dim is the CAN space's dimension; 0 = can.DefaultDim.
	Dim int
	// TTL is the load-balancing TTL given to inserts; 0 = can.DefaultTTL.
	TTL int
	// Tries is how many entry peers one Submit tries. Default 3.
	Tries int
	// Locator, when set, places hosts by their network coordinate.
	Locator Locator
	// Rand picks entry peers; default seeded from the clock.
	Rand *rand.Rand
	// Direct, when set, names the peer that takes a host's tasks and a
	// point of its zone: the task goes straight to it with TTL 0, with no
	// CAN routing and no load balancing. The manager sets it for the
	// consistent-hashing baseline (paper 004); ok false falls back to the
	// overlay.
	Direct func(hostPort string) (p peer.ID, target can.Point, ok bool)
	// Owner, when set, names the holder of a point by the manager's zone
	// map: an insert goes to it first, so it takes no overlay hop before
	// its owner balances it. Entry peers route it when the owner is not
	// reachable.
	Owner func(can.Point) (peer.ID, bool)
	// Now is the clock Ready measures PlaceWait by; default time.Now.
	Now func() time.Time
}

// PlaceWait is how long Ready holds a host's tasks while the Locator
// cannot locate it: long enough for a new swarm's first members to join
// and measure the host (the default demo's eight join within about two
// seconds of the manager), short against any recrawl interval. A network
// too small for the solver sends its tasks at hash points after it.
const PlaceWait = 20 * time.Second

// Submitter sends signed tasks into the overlay. Safe for concurrent use.
type Submitter struct {
	h    Host
	opts Options

	mu    sync.Mutex // guards rand, cache and unplaced
	rand  *rand.Rand
	cache map[string]can.Point
	// unplaced is when Ready first failed to locate each host that has
	// not been located since.
	unplaced map[string]time.Time
}

// New returns a Submitter over h.
func New(h Host, opts Options) *Submitter {
	if opts.Dim <= 0 {
		opts.Dim = can.DefaultDim
	}
	if opts.TTL == 0 {
		opts.TTL = can.DefaultTTL
	}
	if opts.Tries <= 0 {
		opts.Tries = 3
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := opts.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x68697665))
	}
	return &Submitter{h: h, opts: opts, rand: r, cache: make(map[string]can.Point), unplaced: make(map[string]time.Time)}
}

// Ready reports whether a task for hostPort may be sent now: at once
// without a Locator, with Direct, or once the host has a point; else
// when the Locator places it, or after it has failed to for PlaceWait.
func (s *Submitter) Ready(ctx context.Context, hostPort string) bool {
	if s.opts.Locator == nil || s.opts.Direct != nil {
		return true
	}
	s.mu.Lock()
	_, placed := s.cache[hostPort]
	s.mu.Unlock()
	if placed {
		return true
	}
	if p, err := s.opts.Locator.Locate(ctx, hostPort); err == nil && len(p) == s.opts.Dim {
		s.mu.Lock()
		s.cache[hostPort] = can.Clamp(p)
		delete(s.unplaced, hostPort)
		s.mu.Unlock()
		return true
	}
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	first, ok := s.unplaced[hostPort]
	if !ok {
		s.unplaced[hostPort] = now
		return false
	}
	return now.Sub(first) >= PlaceWait
}

// Point returns the host's point, renewing the cached one through the
// Locator (kept when locating fails).
func (s *Submitter) Point(ctx context.Context, hostPort string) can.Point {
	if s.opts.Locator != nil {
		if p, err := s.opts.Locator.Locate(ctx, hostPort); err == nil && len(p) == s.opts.Dim {
			p = can.Clamp(p)
			s.mu.Lock()
			s.cache[hostPort] = p
			s.mu.Unlock()
			return p
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.cache[hostPort]; ok {
		return p
	}
	return can.HashPoint(hostPort, s.opts.Dim)
}

// EntryPeers returns the connected peers that speak the insert protocol.
func (s *Submitter) EntryPeers() []peer.ID {
	var out []peer.ID
	ps := s.h.Network().Peerstore()
	for _, p := range s.h.Network().Peers() {
		if ok, err := ps.SupportsProtocols(p, wire.InsertProtocol); err == nil && len(ok) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Cached returns the point last used for hostPort.
func (s *Submitter) Cached(hostPort string) (can.Point, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.cache[hostPort]
	return p, ok
}

// Aim is where a host's tasks go: its point in the CAN space, signed into
// each task, and for the consistent-hashing baseline the peer that takes
// them directly.
type Aim struct {
	Target can.Point
	Direct peer.ID
}

// Aim returns where tasks for hostPort go now.
func (s *Submitter) Aim(ctx context.Context, hostPort string) Aim {
	if s.opts.Direct != nil {
		if p, target, ok := s.opts.Direct(hostPort); ok {
			s.mu.Lock()
			s.cache[hostPort] = target
			s.mu.Unlock()
			return Aim{Target: target, Direct: p}
		}
	}
	return Aim{Target: s.Point(ctx, hostPort)}
}

// Submit sends one signed task, aimed by a (whose target must be the one
// signed into it), to a random entry peer, trying others when one fails,
// and returns the peer that queued it.
func (s *Submitter) Submit(ctx context.Context, a Aim, env []byte) (peer.ID, error) {
	if a.Direct != "" {
		owner, err := s.insert(ctx, a.Direct, env, a.Target, 0)
		if err != nil {
			return "", fmt.Errorf("submit task to %s: %w", a.Direct, err)
		}
		return owner, nil
	}
	entries := s.EntryPeers()
	if len(entries) == 0 {
		return "", ErrNoEntryPeer
	}
	s.mu.Lock()
	s.rand.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	s.mu.Unlock()
	if s.opts.Owner != nil {
		if o, ok := s.opts.Owner(a.Target); ok {
			if i := slices.Index(entries, o); i > 0 {
				entries[0], entries[i] = entries[i], entries[0]
			}
		}
	}
	var errs []error
	for _, p := range entries[:min(len(entries), s.opts.Tries)] {
		owner, err := s.insert(ctx, p, env, a.Target, s.opts.TTL)
		if err == nil {
			return owner, nil
		}
		errs = append(errs, fmt.Errorf("via %s: %w", p, err))
		if errors.Is(err, ErrUncertain) {
			break // another entry peer could queue it a second time
		}
	}
	return "", fmt.Errorf("submit task: %w", errors.Join(errs...))
}

func (s *Submitter) insert(ctx context.Context, p peer.ID, env []byte, target can.Point, ttl int) (peer.ID, error) {
	st, err := s.h.NewStream(wire.AllowRelayed(ctx), p, wire.InsertProtocol)
	if err != nil {
		return "", err
	}
	defer st.Close()
	c := wire.NewConn(st, wire.MaxInsertResponseSize)
	var resp wire.InsertResponse
	ins := &wire.Insert{Envelope: env, Target: target, Ttl: uint32(max(ttl, 0))}
	if err := c.Write(ctx, ins, wire.MaxInsertSize); err != nil {
		st.Reset()
		return "", err
	}
	if err := c.Read(ctx, &resp); err != nil {
		st.Reset()
		return "", fmt.Errorf("%w: %w", ErrUncertain, err)
	}
	if resp.Error != "" {
		return "", errors.New(resp.Error)
	}
	owner, err := wire.ValidatePeerID(resp.Owner)
	if err != nil {
		return "", fmt.Errorf("owner: %w", err)
	}
	return owner, nil
}

// Options returns the options the Submitter runs with.
func (s *Submitter) Options() Options { return s.opts }
