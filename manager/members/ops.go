package members

import (
	"context"
	"errors"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/zones"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// maxCertBytes bounds the certificates and addresses one answer carries,
// leaving room for the rest of an answer within entry.MaxMessageSize.
const maxCertBytes = entry.MaxMessageSize - 8<<10

// SetZones makes the registry serve operations (Request.Op) from z, the
// manager's zone map. Without it they are refused (RefusedNoMap).
func (r *Registry) SetZones(z *zones.Authority) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.zones = z
}

// answerOp serves an operation for from, the stream's remote peer.
func (r *Registry) answerOp(ctx context.Context, from peer.ID, req entry.Request) entry.Answer {
	r.mu.Lock()
	z := r.zones
	var why string
	if r.admit != nil {
		why = r.admit(req.Version)
	}
	if why != "" {
		delete(r.members, from)
	}
	r.mu.Unlock()
	if z == nil {
		return entry.Answer{Refused: entry.RefusedNoMap}
	}
	if why != "" {
		// No certificate, and its zones go to its heirs. Should the
		// store fail here, the zones go when they expire, since they are
		// no longer renewed. A peer that asked to leave is told its
		// heirs, to hand them its tasks.
		g, err := z.Leave(from)
		if req.Op != entry.OpLeave || err != nil {
			return entry.Answer{Outdated: why}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		a := r.fitLocked(from, g)
		a.Outdated = why
		return a
	}
	var (
		g       zones.Grant
		err     error
		suspect peer.ID
	)
	switch req.Op {
	case entry.OpJoin:
		g, err = z.Join(from, can.Point(req.Point))
	case entry.OpMove:
		g, err = z.Move(from, can.Point(req.Point))
	case entry.OpRenew:
		g, err = z.Renew(from)
	case entry.OpLeave:
		g, err = z.Leave(from)
	case entry.OpReport:
		suspect, _ = peer.Decode(req.Suspect) // Validate decoded it
		g, err = z.Report(ctx, from, suspect)
	}
	if err != nil {
		return entry.Answer{Refused: refusal(err)}
	}
	held := boxes(z.Zones(from))
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case len(held) == 0:
		delete(r.members, from)
	default:
		r.members[from] = &Member{ID: from, Zones: held, Coord: req.Coord, CoordError: req.CoordError,
			Samples: req.Samples, Capacity: req.Capacity, Seen: now}
	}
	if suspect != "" && len(z.Zones(suspect)) == 0 {
		delete(r.members, suspect)
	}
	return r.fitLocked(from, g)
}

// refusal is the reason an asker reads for err.
func refusal(err error) string {
	for _, c := range []struct {
		err  error
		text string
	}{
		{zones.ErrJoinAgain, entry.RefusedJoinAgain},
		{zones.ErrTooDeep, entry.RefusedTooDeep},
		{zones.ErrBadPoint, entry.RefusedBadPoint},
		{zones.ErrNotNeighbour, entry.RefusedNotNeighbour},
		{zones.ErrSuspectAnswers, entry.RefusedSuspectAnswers},
		{zones.ErrCheckedRecently, entry.RefusedCheckedRecently},
	} {
		if errors.Is(err, c.err) {
			return c.text
		}
	}
	return entry.RefusedUnavailable
}

// fitLocked puts g's certificates, the asker's first, and the addresses
// of the other holders they name into an answer, in order, as many as fit
// in maxCertBytes (JSON and base64 counted). A grant that large (a zone
// with hundreds of small neighbours) loses its last neighbours, whom the
// asker still learns of from their heartbeats.
func (r *Registry) fitLocked(from peer.ID, g zones.Grant) entry.Answer {
	var a entry.Answer
	ps := r.h.Network().Peerstore()
	named := map[peer.ID]bool{from: true}
	size := 0
	certs := append(append([]zonecert.Cert(nil), g.Held...), g.Others...)
	for i, raw := range g.Encoded() {
		need := (len(raw)+2)/3*4 + 3
		var p *entry.Peer
		if h := certs[i].Holder; !named[h] {
			p = &entry.Peer{ID: h.String()}
			for _, addr := range ps.Addrs(h) {
				p.Addrs = append(p.Addrs, addr.String())
			}
			need += len(p.ID) + 20
			for _, s := range p.Addrs {
				need += len(s) + 3
			}
		}
		if size+need > maxCertBytes {
			break
		}
		size += need
		a.Certs = append(a.Certs, raw)
		if p != nil {
			named[certs[i].Holder] = true
			if len(p.Addrs) > 0 {
				a.Peers = append(a.Peers, *p)
			}
		}
	}
	return a
}

// boxes are zs as the protocol carries zones.
func boxes(zs []can.Zone) []entry.Box {
	out := make([]entry.Box, len(zs))
	for i, z := range zs {
		out[i] = entry.Box{Lo: z.Lo, Hi: z.Hi}
	}
	return out
}
