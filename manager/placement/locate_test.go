package placement

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
)

// lineSolver answers as members would whose round trip to a host is the
// distance between their coordinates and the host's: the nearest of the
// probers, and the host's coordinate as a perfect fit. It records each
// host's rounds, the probers of each. A liar, when set, answers 1 µs
// for every host and is never refuted, as where too few settled others
// can check it.
type lineSolver struct {
	ms     []members.Member
	hosts  map[string][]float64
	rounds map[string][][]peer.ID
	liar   peer.ID
}

// count is how many rounds were asked for.
func (s *lineSolver) count() int {
	n := 0
	for _, r := range s.rounds {
		n += len(r)
	}
	return n
}

func (s *lineSolver) Solve(_ context.Context, hostPort string, probers []peer.ID) (rtt.Measured, error) {
	s.rounds[hostPort] = append(s.rounds[hostPort], slices.Clone(probers))
	h, ok := s.hosts[hostPort]
	if !ok {
		return rtt.Measured{}, fmt.Errorf("no host %s", hostPort)
	}
	var m rtt.Measured
	for _, id := range probers {
		i := slices.IndexFunc(s.ms, func(mb members.Member) bool { return mb.ID == id })
		d := coord.Coord{Vec: h}.DistanceTo(coord.Coord{Vec: s.ms[i].Coord})
		if id == s.liar {
			d = 0.001
		}
		if m.Nearest == "" || d < m.RTT {
			m.Nearest, m.RTT = id, d
		}
	}
	m.Coord = coord.Coord{Vec: slices.Clone(h)}
	return m, nil
}

// fixedMembers is an overlay of the given members.
type fixedMembers []members.Member

func (f fixedMembers) MemberInfos() []members.Member { return slices.Clone(f) }

// TestNewHostMeasuredAgainFromAroundIt: a host measured the first time,
// by members at random, is measured again by the members its solved
// coordinate puts nearest, so the member nearest it is found though the
// first round missed it; no second round when every member measured
// already, when the first rested on unsettled coordinates, or when the
// host had a coordinate to choose the probers by. Without the second
// round, 17 of these 40 hosts went to a member that was not nearest.
func TestNewHostMeasuredAgainFromAroundIt(t *testing.T) {
	ms := settledMembers(12, 0, 110) // 8 of them probe a host
	hosts := map[string][]float64{}
	want := map[string]peer.ID{}
	for i := range 40 {
		mb := ms[i%len(ms)]
		h := fmt.Sprintf("h%d.example:443", i)
		hosts[h] = []float64{mb.Coord[0] + 1, mb.Coord[1], mb.Coord[2]}
		want[h] = mb.ID
	}
	clk := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	bounds := func() envelope.Bounds { return envelope.Bounds{Bounds: DefaultBounds} }
	locate := func(ms []members.Member, db located) *lineSolver {
		s := &lineSolver{ms: ms, hosts: hosts, rounds: map[string][][]peer.ID{}}
		l := NewLocator(fixedMembers(ms), s, db, bounds, nil, clk.now, rand.New(rand.NewPCG(1, 2)))
		for _, h := range slices.Sorted(maps.Keys(hosts)) {
			if _, err := l.Locate(context.Background(), h); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}

	db := located{}
	s := locate(ms, db)
	missed := 0
	for h, id := range want {
		if db[h].Nearest != id.String() {
			t.Errorf("%s placed at member %s, want %s, its nearest", h, db[h].Nearest, id)
		}
		if !slices.Contains(s.rounds[h][0], id) {
			missed++
		}
		if len(s.rounds[h]) > 2 {
			t.Errorf("%s measured in %d rounds, want at most 2", h, len(s.rounds[h]))
		}
	}
	if missed == 0 {
		t.Fatal("every first round had the nearest member: the test shows nothing")
	}
	t.Logf("the first round missed the nearest member of %d of %d hosts", missed, len(want))

	// Measured again when the coordinate is stale: one round, from
	// around the stored coordinate.
	clk.add(2 * relocateAfter)
	if s := locate(ms, db); s.count() != len(hosts) {
		t.Errorf("%d rounds measuring %d known hosts again, want one each", s.count(), len(hosts))
	}
	// Every member measured in the first round.
	if s := locate(ms[:probers], located{}); s.count() != len(hosts) {
		t.Errorf("%d rounds with %d members, all probing, for %d hosts; want one each", s.count(), probers, len(hosts))
	}
	// The first round rested on unsettled coordinates.
	unsettled := slices.Clone(ms)
	for i := range unsettled {
		unsettled[i].CoordError = 1.5
	}
	if s := locate(unsettled, located{}); s.count() != len(hosts) {
		t.Errorf("%d rounds from unsettled members for %d hosts, want one each", s.count(), len(hosts))
	}
}

// TestSecondRoundLeavesAFarLiarOut: a member that answers 1 µs for every
// host and is never refuted wins each host whose first round drew it;
// the second round, chosen by the host's coordinate, does not ask a
// member far from the host, and decides, so no host goes to it.
func TestSecondRoundLeavesAFarLiarOut(t *testing.T) {
	ms := settledMembers(12, 0, 110)
	liar := ms[11].ID // at x = 110, the hosts at x ≤ 41
	hosts := map[string][]float64{}
	for i := range 30 {
		mb := ms[i%5]
		hosts[fmt.Sprintf("h%d.example:443", i)] = []float64{mb.Coord[0] + 1, mb.Coord[1], mb.Coord[2]}
	}
	s := &lineSolver{ms: ms, hosts: hosts, rounds: map[string][][]peer.ID{}, liar: liar}
	db := located{}
	clk := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	l := NewLocator(fixedMembers(ms), s, db, func() envelope.Bounds { return envelope.Bounds{Bounds: DefaultBounds} }, nil, clk.now, rand.New(rand.NewPCG(3, 4)))
	drawn := 0
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		if _, err := l.Locate(context.Background(), h); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(s.rounds[h][0], liar) {
			drawn++
		}
		if db[h].Nearest == liar.String() {
			t.Errorf("%s placed at the liar (rounds %v)", h, s.rounds[h])
		}
	}
	if drawn == 0 {
		t.Fatal("no first round drew the liar: the test shows nothing")
	}
	t.Logf("the liar was drawn in the first round for %d of %d hosts", drawn, len(hosts))
}
