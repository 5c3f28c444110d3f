package manager

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/hivecrawl/hivecrawl/manager/entry"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/node"
)

// DefaultBounds are the CAN space's bounds for a network with
// coordinate-aware placement when the operator sets none: ±120 ms in each
// of the three dimensions. Vivaldi run over the PlanetLab matrix the
// project carries gives trained bounds (5 % trimmed each side) within
// about ±40 to ±190 ms depending on the run, since Vivaldi's space has no
// fixed orientation; a symmetric box of this size holds most peers of a
// continent-wide swarm, and points outside are clamped to its faces.
var DefaultBounds = coord.Bounds{Lo: []float64{-120, -120, -120}, Hi: []float64{120, 120, 120}}

// probers is how many member peers measure a host: d+2, one more than the
// solver needs, so one slow or failed answer does not stop it.
const probers = can.DefaultDim + 2

// memberLocator places web hosts at their solved network coordinate
// (DESIGN §2 step 3), asking member peers of the overlay to measure them.
type memberLocator struct {
	members *entry.Registry
	loc     *node.Locator

	mu   sync.Mutex // guards rand
	rand *rand.Rand
}

var _ submit.Locator = (*memberLocator)(nil)

func newMemberLocator(m *Manager, b coord.Bounds, r *rand.Rand) *memberLocator {
	return &memberLocator{members: m.entry, loc: node.NewLocator(m.host, b, r), rand: r}
}

// Locate measures hostPort from a few random members and returns its
// point in the CAN space.
func (l *memberLocator) Locate(ctx context.Context, hostPort string) (can.Point, error) {
	ms := l.members.Members()
	if len(ms) < can.DefaultDim+1 {
		return nil, fmt.Errorf("locate %s: %d overlay peers to measure from, need %d", hostPort, len(ms), can.DefaultDim+1)
	}
	l.mu.Lock()
	l.rand.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	l.mu.Unlock()
	p, _, err := l.loc.Locate(ctx, hostPort, ms[:min(len(ms), probers)])
	if err != nil {
		return nil, err
	}
	if len(p) != can.DefaultDim {
		return nil, errors.New("locate: solver returned a point of the wrong dimension")
	}
	return p, nil
}
