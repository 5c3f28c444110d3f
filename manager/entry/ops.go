package entry

import (
	"context"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/zones"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// Operations on the manager's zone map (Request.Op).
const (
	// OpJoin asks for a zone at Point: the zone holding it is split. A
	// peer holding zones already is moved there (a restarted client).
	OpJoin = "join"
	// OpMove hands the asker's zones to their heirs and joins it at Point.
	OpMove = "move"
	// OpRenew extends the asker's certificates; sent every RenewEvery.
	OpRenew = "renew"
	// OpLeave hands the asker's zones to their heirs.
	OpLeave = "leave"
	// OpReport tells the manager that Suspect, a neighbour, stopped
	// answering: the manager checks it and removes it if it is silent.
	OpReport = "report"
)

// Why an operation was refused (Answer.Refused).
const (
	// RefusedJoinAgain: the asker holds no zone, or its certificates
	// expired. It must join again (OpJoin).
	RefusedJoinAgain = "join again"
	// RefusedTooDeep: the zone at that point is split as deep as the map
	// allows; join at another point.
	RefusedTooDeep = "too deep"
	// RefusedBadPoint: the point is not in the manager's space (its
	// dimension differs).
	RefusedBadPoint = "bad point"
	// RefusedNotNeighbour: the suspect's zones do not abut the reporter's.
	RefusedNotNeighbour = "not a neighbour"
	// RefusedSuspectAnswers: the manager reached the suspect; it stays.
	RefusedSuspectAnswers = "suspect answers"
	// RefusedCheckedRecently: the manager checked the suspect moments ago
	// and it answered then, or the check is under way.
	RefusedCheckedRecently = "checked recently"
	// RefusedNoMap: this manager keeps no zone map (solo mode).
	RefusedNoMap = "no zone map"
	// RefusedUnavailable: the manager could not decide now (its database
	// failed); ask again at the next renewal.
	RefusedUnavailable = "unavailable"
)

// maxCertBytes bounds the certificates and addresses one answer carries,
// leaving room for the rest of an answer within MaxMessageSize.
const maxCertBytes = MaxMessageSize - 8<<10

// validateOp checks an operation's fields.
func (r *Request) validateOp() error {
	switch r.Op {
	case "", OpRenew, OpLeave:
	case OpJoin, OpMove:
		if len(r.Point) == 0 || len(r.Point) > maxDim || !finite(r.Point) {
			return fmt.Errorf("%w: point %v", ErrMalformed, r.Point)
		}
		for _, x := range r.Point {
			if x < 0 || x > 1 {
				return fmt.Errorf("%w: point %v outside the unit box", ErrMalformed, r.Point)
			}
		}
	case OpReport:
		if _, err := peer.Decode(r.Suspect); err != nil {
			return fmt.Errorf("%w: suspect %.60q: %v", ErrMalformed, r.Suspect, err)
		}
	default:
		return fmt.Errorf("%w: operation %.20q", ErrMalformed, r.Op)
	}
	if len(r.Point) > 0 && r.Op != OpJoin && r.Op != OpMove {
		return fmt.Errorf("%w: a point with operation %q", ErrMalformed, r.Op)
	}
	if r.Suspect != "" && r.Op != OpReport {
		return fmt.Errorf("%w: a suspect with operation %q", ErrMalformed, r.Op)
	}
	return nil
}

// SetZones makes the registry serve operations (Request.Op) from z, the
// manager's zone map. Without it they are refused (RefusedNoMap).
func (r *Registry) SetZones(z *zones.Authority) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.zones = z
}

// answerOp serves an operation for from, the stream's remote peer.
func (r *Registry) answerOp(ctx context.Context, from peer.ID, req Request) Answer {
	r.mu.Lock()
	z := r.zones
	var why string
	if r.admit != nil {
		why = r.admit(req.Version)
	}
	if why != "" {
		delete(r.members, from)
		if from == r.first {
			r.first = ""
		}
	}
	r.mu.Unlock()
	if z == nil {
		return Answer{Refused: RefusedNoMap}
	}
	if why != "" {
		// No certificate, and its zones go to its heirs. Should the
		// store fail here, the zones go when they expire, since they are
		// no longer renewed. A peer that asked to leave is told its
		// heirs, to hand them its tasks.
		g, err := z.Leave(from)
		if req.Op != OpLeave || err != nil {
			return Answer{Outdated: why}
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
	case OpJoin:
		g, err = z.Join(from, can.Point(req.Point))
	case OpMove:
		g, err = z.Move(from, can.Point(req.Point))
	case OpRenew:
		g, err = z.Renew(from)
	case OpLeave:
		g, err = z.Leave(from)
	case OpReport:
		suspect, _ = peer.Decode(req.Suspect) // Validate decoded it
		g, err = z.Report(ctx, from, suspect)
	}
	if err != nil {
		return Answer{Refused: refusal(err)}
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
		if from == r.first {
			r.first = ""
		}
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
		{zones.ErrJoinAgain, RefusedJoinAgain},
		{zones.ErrTooDeep, RefusedTooDeep},
		{zones.ErrBadPoint, RefusedBadPoint},
		{zones.ErrNotNeighbour, RefusedNotNeighbour},
		{zones.ErrSuspectAnswers, RefusedSuspectAnswers},
		{zones.ErrCheckedRecently, RefusedCheckedRecently},
	} {
		if errors.Is(err, c.err) {
			return c.text
		}
	}
	return RefusedUnavailable
}

// fitLocked puts g's certificates, the asker's first, and the addresses
// of the other holders they name into an answer, in order, as many as fit
// in maxCertBytes (JSON and base64 counted). A grant that large (a zone
// with hundreds of small neighbours) loses its last neighbours, whom the
// asker still learns of from their heartbeats.
func (r *Registry) fitLocked(from peer.ID, g zones.Grant) Answer {
	var a Answer
	ps := r.h.Network().Peerstore()
	named := map[peer.ID]bool{from: true}
	size := 0
	certs := append(append([]zonecert.Cert(nil), g.Held...), g.Others...)
	for i, raw := range g.Encoded() {
		need := (len(raw)+2)/3*4 + 3
		var p *Peer
		if h := certs[i].Holder; !named[h] {
			p = &Peer{ID: h.String()}
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
func boxes(zs []can.Zone) []Box {
	out := make([]Box, len(zs))
	for i, z := range zs {
		out[i] = Box{Lo: z.Lo, Hi: z.Hi}
	}
	return out
}
