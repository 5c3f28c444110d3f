package placement

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
)

// DefaultBounds are the CAN space's bounds for a network with
// coordinate-aware placement before the manager has trained its own from
// the members' coordinates (bounds.go): ±120 ms in each of the three
// dimensions. Vivaldi run over the PlanetLab matrix the project carries
// gives trained bounds (5 % trimmed each side) within about ±40 to ±190 ms
// depending on the run, since Vivaldi's space has no fixed orientation;
// points outside are clamped to the box's faces.
var DefaultBounds = coord.Bounds{Lo: []float64{-120, -120, -120}, Hi: []float64{120, 120, 120}}

// probers is how many member peers measure a host: the solver needs d+1,
// and each more makes it likelier that the member nearest the host is
// among them, where a host is placed until its coordinate is trusted
// (point). Each measurement is a few TCP handshakes, no request.
const probers = 2*can.DefaultDim + 2

// How long a host's coordinate is trusted before it is measured again:
// relocateAfter when the members that measured it had settled coordinates
// and the solve fitted their measurements, relocateUnsure otherwise (a
// host located while the swarm's coordinates were still settling). Such
// a host went to the shortest round trip at its word, which no settled
// coordinate could check (coord.Nearest); members settle within about a
// minute of joining, so a liar's word holds a host placed in a new
// swarm's first minute until the host's first send after it.
const (
	relocateAfter  = 24 * time.Hour
	relocateUnsure = time.Minute
	sureResidual   = 0.3
)

// Members are the overlay's members as they last reported themselves.
type Members interface {
	MemberInfos() []members.Member
}

// Located is where hosts' coordinates are kept (the channel database).
type Located interface {
	GetLocated(hostPort string) (channels.Located, bool, error)
	PutLocated(hostPort string, l channels.Located) error
}

// Locator places web hosts at their solved network coordinate
// (design.md §2 step 3), asking member peers of the overlay to measure them.
// Coordinates are kept in the channel database and mapped with the
// current bounds at every call, so trained bounds move hosts with them.
//
// The coordinate chooses who measures the host (the members nearest it,
// once it has one); the measurements place it: at the anchor of the
// member that measured the shortest round trip (its own point in the
// zone map, which the map keeps in its zones). That member is near the
// host by measurement, not by prediction: Vivaldi predicts round trips
// to within some tens of percent, and before the bounds are trained,
// or from unsettled coordinates, the mapped point lands anywhere. The
// mapped coordinate places a host whose nearest member holds no zone.
type Locator struct {
	members Members
	loc     Solver
	db      Located
	bounds  func() envelope.Bounds
	anchor  func(peer.ID) (can.Point, bool)
	now     func() time.Time

	mu   sync.Mutex // guards rand
	rand *rand.Rand
}

var _ submit.Locator = (*Locator)(nil)

// Solver has members measure a host and solves its coordinate from their
// answers: rtt.Locator over the overlay.
type Solver interface {
	Solve(ctx context.Context, hostPort string, probers []peer.ID) (rtt.Measured, error)
}

var _ Solver = (*rtt.Locator)(nil)

// NewLocator returns a locator whose probes (loc, a rtt.Locator on the
// manager's host; nil when nothing is measured) go to members, keeping
// coordinates in db and mapping them with bounds; anchor returns a point
// the zone map routes to a member, false when it holds no zone (nil:
// hosts are only mapped).
func NewLocator(ms Members, loc Solver, db Located, bounds func() envelope.Bounds, anchor func(peer.ID) (can.Point, bool), now func() time.Time, r *rand.Rand) *Locator {
	return &Locator{members: ms, loc: loc, db: db, bounds: bounds, anchor: anchor, now: now, rand: r}
}

// Locate returns hostPort's point in the CAN space: its stored coordinate
// while that is fresh, else one measured again from members near it (or,
// the first time, from members at random), mapped with the current
// bounds. A failed measurement keeps the stored coordinate.
func (l *Locator) Locate(ctx context.Context, hostPort string) (can.Point, error) {
	old, found, err := l.db.GetLocated(hostPort)
	if err != nil {
		return nil, err
	}
	now := l.now()
	if found && now.Sub(old.At) < trustFor(old) {
		// Measured again before its time only when the member that
		// measured it nearest holds no zone now (it left): another
		// member near the host is found.
		if p, anchored := l.point(old); anchored || l.anchor == nil {
			return p, nil
		}
	}
	var near []float64
	if found {
		near = old.Coord.Vec
	}
	loc, err := l.measure(ctx, hostPort, near, now)
	switch {
	case err == nil:
		if err := l.db.PutLocated(hostPort, loc); err != nil {
			return nil, err
		}
	case found:
		loc = old
	default:
		return nil, err
	}
	p, _ := l.point(loc)
	return p, nil
}

// point is where loc places its host now: the anchor of the member that
// measured the host nearest while it holds a zone (anchored), else the
// coordinate mapped with the current bounds.
func (l *Locator) point(loc channels.Located) (p can.Point, anchored bool) {
	if l.anchor != nil {
		if id, err := peer.Decode(loc.Nearest); err == nil {
			if p, ok := l.anchor(id); ok {
				return p, true
			}
		}
	}
	return l.bounds().Bounds.Map(loc.Coord), false
}

// measure solves hostPort's coordinate from the members' measurements.
// A host measured the first time (near nil) is measured by members at
// random, and the one of them nearest it is likely not the swarm's
// nearest: with 12 members and 8 probers, a third of the hosts. When
// that first solve rests on settled coordinates, the members its
// coordinate puts nearest measure the host again, once, those of the
// first round near it among them, and the second round decides: its
// fit, from members around the host, is the more sensitive (paper 002
// §3), and checks the short round trips of the first round's nearest
// again (coord.Nearest). A host that cannot be measured again keeps the
// first round's location.
func (l *Locator) measure(ctx context.Context, hostPort string, near []float64, now time.Time) (channels.Located, error) {
	ms := l.members.MemberInfos()
	if len(ms) < can.DefaultDim+1 {
		return channels.Located{}, fmt.Errorf("locate %s: %d overlay peers to measure from, need %d", hostPort, len(ms), can.DefaultDim+1)
	}
	first, err := l.round(ctx, hostPort, l.choose(ms, near), now)
	if err != nil || near != nil || first.loc.ProbeError > coord.SettledError {
		return first.loc, err
	}
	chosen := l.choose(ms, first.loc.Coord.Vec)
	if !slices.ContainsFunc(chosen, func(mb members.Member) bool { return !slices.Contains(first.probers, mb.ID) }) {
		return first.loc, nil // the same members again
	}
	second, err := l.round(ctx, hostPort, chosen, now)
	if err != nil {
		return first.loc, nil
	}
	return second.loc, nil
}

// measured is one round of measure: the host's location as chosen
// members measured it, and who measured.
type measured struct {
	loc     channels.Located
	probers []peer.ID
}

// round has chosen measure hostPort and solves its coordinate.
func (l *Locator) round(ctx context.Context, hostPort string, chosen []members.Member, now time.Time) (measured, error) {
	ids := make([]peer.ID, len(chosen))
	var errSum float64
	for i, mb := range chosen {
		ids[i] = mb.ID
		errSum += mb.CoordError
	}
	m, err := l.loc.Solve(ctx, hostPort, ids)
	if err != nil {
		return measured{}, err
	}
	loc := channels.Located{Coord: m.Coord, Residual: m.Residual, ProbeError: errSum / float64(len(chosen)), At: now, Nearest: m.Nearest.String()}
	return measured{loc, ids}, nil
}

// choose picks the probers: with near (the host's last coordinate), the
// members closest to it, where the solve is most sensitive (paper 002
// §3); without, members at random, the settled ones first.
func (l *Locator) choose(ms []members.Member, near []float64) []members.Member {
	l.mu.Lock()
	l.rand.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	l.mu.Unlock()
	key := func(mb members.Member) float64 {
		switch {
		case len(mb.Coord) == 0 || mb.CoordError > coord.SettledError:
			return math.Inf(1)
		case len(near) != len(mb.Coord):
			return 0
		}
		return coord.Coord{Vec: near}.DistanceTo(coord.Coord{Vec: mb.Coord})
	}
	slices.SortStableFunc(ms, func(a, b members.Member) int { return cmp.Compare(key(a), key(b)) })
	return ms[:min(len(ms), probers)]
}

// trustFor is how long l is trusted.
func trustFor(l channels.Located) time.Duration {
	if l.ProbeError <= coord.SettledError && l.Residual <= sureResidual {
		return relocateAfter
	}
	return relocateUnsure
}
