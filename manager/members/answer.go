package members

import (
	"bufio"
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// Answer decides what from, asking with req, is told.
func (r *Registry) Answer(from peer.ID, req entry.Request) entry.Answer {
	return r.AnswerContext(context.Background(), from, req)
}

// AnswerContext is Answer, with ctx bounding what an operation waits for
// (a report's liveness check).
func (r *Registry) AnswerContext(ctx context.Context, from peer.ID, req entry.Request) entry.Answer {
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

func (r *Registry) answerLocked(now time.Time, from peer.ID, req entry.Request) entry.Answer {
	if r.admit != nil {
		if why := r.admit(req.Version); why != "" {
			delete(r.members, from)
			if from == r.first {
				r.first = ""
			}
			return entry.Answer{Outdated: why}
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
			return entry.Answer{}
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
			return entry.Answer{}
		}
		r.first, r.firstAt = from, now
		return entry.Answer{First: true}
	}
	r.asked = time.Time{}
	r.rand.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	// Peers others can dial first: a joiner tries the entries in order.
	var dialable, natted []peer.ID
	for _, id := range live {
		if len(dialable) == entry.MaxEntries {
			break
		}
		if r.behindNAT(id) {
			natted = append(natted, id)
		} else {
			dialable = append(dialable, id)
		}
	}
	live = append(dialable, natted...)
	a := entry.Answer{}
	ps := r.h.Network().Peerstore()
	for _, id := range live[:min(len(live), entry.MaxEntries)] {
		p := entry.Peer{ID: id.String()}
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
	s.SetDeadline(time.Now().Add(entry.Timeout))
	br := bufio.NewReader(s)
	var req entry.Request
	if err := entry.Decode(br, &req); err != nil || req.Validate() != nil {
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
	if err := frame.Write(s, a, entry.MaxMessageSize); err != nil {
		s.Reset()
	}
}
