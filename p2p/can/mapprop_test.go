package can

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// t0 is the start of every test's clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var (
	sequences = flag.Int("map.sequences", 1000, "random operation sequences TestMapProperties runs")
	mapSeed   = flag.Uint64("map.seed", 42, "seed of TestMapProperties' sequences")
)

// source is what drives a sequence: a seeded generator, or fuzz bytes.
type source interface {
	IntN(n int) int
	Float64() float64
}

// byteSource reads choices from fuzz input, then zeros once it runs out.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSource) IntN(n int) int { return int(s.next()) % n }

// Float64 returns coarse values, often exactly on split lines.
func (s *byteSource) Float64() float64 { return float64(s.next()) / 255 }

func (s *byteSource) done() bool { return len(s.b) == 0 }

// model is what the test knows independently of the map: who is live and
// until when, and the highest epoch ever issued per path.
type model struct {
	dim    int
	ttl    time.Duration
	now    time.Time
	expiry map[PeerID]time.Time
	issued map[Path]uint64
	points []Point
	ops    int
	// ids is the pool of peer IDs drawn from; the clock moves 0 to 7
	// ticks an operation; the brute-force checks of the whole map run
	// every so many operations.
	ids   int
	tick  time.Duration
	every int
}

const seqTTL = 10 * time.Second

func point(src source, d int, seen []Point) Point {
	p := make(Point, d)
	switch src.IntN(5) {
	case 0:
		if len(seen) > 0 {
			return slices.Clone(seen[src.IntN(len(seen))])
		}
	case 1: // on a split line
		for i := range p {
			p[i] = float64(src.IntN(9)) / 8
		}
		return p
	}
	for i := range p {
		p[i] = src.Float64()
	}
	if src.IntN(6) == 0 {
		p[src.IntN(d)] = float64(src.IntN(3)) - 0.5 // off the box: clamped
	}
	return p
}

// runSequence drives a fresh map with up to n operations drawn from src
// and checks every invariant after each. A twin decoded from the map's
// encoding at random moments must go on exactly as the map does.
func runSequence(src source, n int, stop func() bool) (ops int, err error) {
	dim := 1 + src.IntN(4)
	md := &model{dim: dim, ttl: seqTTL, now: t0, expiry: map[PeerID]time.Time{}, issued: map[Path]uint64{}, ids: 12, tick: seqTTL / 8, every: 1}
	return md.run(src, n, stop)
}

func (md *model) run(src source, n int, stop func() bool) (ops int, err error) {
	dim := md.dim
	m := NewMap(dim, seqTTL)
	var twin *Map
	for i := 0; i < n && !stop(); i++ {
		if src.IntN(8) == 0 {
			b, err := m.MarshalBinary()
			if err != nil {
				return md.ops, err
			}
			twin = new(Map)
			if err := twin.UnmarshalBinary(b); err != nil {
				return md.ops, fmt.Errorf("op %d: decode own encoding: %w", i, err)
			}
		}
		if err := md.step(src, m, twin); err != nil {
			return md.ops, fmt.Errorf("op %d (dim %d): %w", i, dim, err)
		}
	}
	return md.ops, nil
}

// step applies one random operation to m (and twin), then checks.
func (md *model) step(src source, m, twin *Map) error {
	md.ops++
	md.now = md.now.Add(time.Duration(src.IntN(8)) * md.tick)
	id := PeerID(fmt.Sprintf("p%03d", src.IntN(md.ids)))
	before := leafSet(m)
	var (
		changed  []Leaf
		err      error
		what     string
		apply    func(*Map) ([]Leaf, error)
		wantHeir PeerID
	)
	_, live := md.expiry[id]
	switch op := src.IntN(10); {
	case op < 4:
		p := point(src, md.dim, md.points)
		md.points = append(md.points, p)
		what = fmt.Sprintf("join %s at %v", id, p)
		apply = func(x *Map) ([]Leaf, error) { return x.Join(id, p, md.now) }
	case op < 5:
		what = "leave " + string(id)
		if live {
			wantHeir = expectedHeir(m, id)
		}
		apply = func(x *Map) ([]Leaf, error) { return x.Leave(id, md.now) }
	case op < 6:
		what = "expire"
		apply = func(x *Map) ([]Leaf, error) { return x.Expire(md.now), nil }
	case op < 8:
		p := point(src, md.dim, md.points)
		what = fmt.Sprintf("move %s to %v", id, p)
		apply = func(x *Map) ([]Leaf, error) { return x.Move(id, p, md.now) }
	default:
		what = "renew " + string(id)
		apply = func(x *Map) ([]Leaf, error) { return x.Renew(id, md.now) }
	}
	changed, err = apply(m)
	if twin != nil {
		tc, terr := apply(twin)
		if (terr == nil) != (err == nil) || !slices.EqualFunc(tc, changed, sameLeaf) {
			return fmt.Errorf("%s: decoded twin returned %v, %v; map %v, %v", what, tc, terr, changed, err)
		}
	}
	if err := md.expect(what, id, live, err); err != nil {
		return err
	}
	after := leafSet(m)
	if err := md.checkChanges(what, before, after, changed); err != nil {
		return err
	}
	if what == "expire" {
		for _, l := range after {
			if !md.now.Before(l.Expiry) {
				return fmt.Errorf("after expire at %v: leaf %v expired", md.now, l)
			}
		}
	}
	if wantHeir != "" {
		if !slices.ContainsFunc(changed, func(l Leaf) bool { return l.Holder == wantHeir }) {
			return fmt.Errorf("%s: changed %v, want the zone given to heir %s", what, changed, wantHeir)
		}
	}
	if md.ops%md.every != 0 {
		return nil
	}
	if err := md.checkMap(m, src); err != nil {
		return fmt.Errorf("after %s: %w", what, err)
	}
	if twin != nil && !slices.EqualFunc(twin.Leaves(), m.Leaves(), sameLeaf) {
		return fmt.Errorf("after %s: decoded twin diverged", what)
	}
	return nil
}

// expect checks the operation's error against the model and updates the
// model's live set.
func (md *model) expect(what string, id PeerID, live bool, err error) error {
	exp, _ := md.expiry[id]
	switch {
	case what[:4] == "join":
		if live {
			if !errors.Is(err, ErrPeerExists) {
				return fmt.Errorf("%s: error %v for a live peer, want ErrPeerExists", what, err)
			}
			return nil
		}
		if errors.Is(err, ErrTooDeep) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		md.expiry[id] = md.now.Add(md.ttl)
	case what[:4] == "move":
		if !live {
			if !errors.Is(err, ErrUnknownPeer) {
				return fmt.Errorf("%s: error %v for an absent peer, want ErrUnknownPeer", what, err)
			}
			return nil
		}
		if errors.Is(err, ErrTooDeep) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		md.expiry[id] = md.now.Add(md.ttl)
	case what[:5] == "leave":
		if !live {
			if !errors.Is(err, ErrUnknownPeer) {
				return fmt.Errorf("%s: error %v for an absent peer, want ErrUnknownPeer", what, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		delete(md.expiry, id)
	case what[:5] == "renew":
		switch {
		case !live && !errors.Is(err, ErrUnknownPeer):
			return fmt.Errorf("%s: error %v for an absent peer, want ErrUnknownPeer", what, err)
		case live && !md.now.Before(exp) && !errors.Is(err, ErrExpired):
			return fmt.Errorf("%s: error %v after expiry, want ErrExpired", what, err)
		case live && md.now.Before(exp) && err != nil:
			return fmt.Errorf("%s: %w", what, err)
		case live && md.now.Before(exp):
			if e := md.now.Add(md.ttl); e.After(exp) {
				md.expiry[id] = e
			}
		}
	case what == "expire":
		for p, e := range md.expiry {
			if !md.now.Before(e) {
				delete(md.expiry, p)
			}
		}
	}
	return nil
}

func sameLeaf(a, b Leaf) bool {
	return a.Path == b.Path && a.Holder == b.Holder && a.Epoch == b.Epoch && a.Expiry.Equal(b.Expiry)
}

func leafSet(m *Map) map[Path]Leaf {
	out := map[Path]Leaf{}
	for _, l := range m.Leaves() {
		out[l.Path] = l
	}
	return out
}

// checkChanges checks that changed is exactly the leaves that differ from
// before, that a leaf keeping its path and holder keeps its epoch (a
// renewal), and that every other changed leaf has an epoch above any ever
// issued for a path overlapping it.
func (md *model) checkChanges(what string, before, after map[Path]Leaf, changed []Leaf) error {
	if !slices.IsSortedFunc(changed, func(a, b Leaf) int { return cmpPath(a.Path, b.Path) }) {
		return fmt.Errorf("%s: changed leaves not in path order", what)
	}
	var want []Leaf
	for p, l := range after {
		if b, ok := before[p]; !ok || !sameLeaf(b, l) {
			want = append(want, l)
		}
	}
	slices.SortFunc(want, func(a, b Leaf) int { return cmpPath(a.Path, b.Path) })
	if !slices.EqualFunc(want, changed, sameLeaf) {
		return fmt.Errorf("%s: returned %d changed leaves %v, the map changed %v", what, len(changed), changed, want)
	}
	for _, l := range changed {
		if b, ok := before[l.Path]; ok && b.Holder == l.Holder {
			if b.Epoch != l.Epoch || !l.Expiry.After(b.Expiry) {
				return fmt.Errorf("%s: renewed leaf %v was %v", what, l, b)
			}
			continue
		}
		for p, e := range md.issued {
			if p.Overlaps(l.Path) && l.Epoch <= e {
				return fmt.Errorf("%s: leaf %q epoch %d, but %q had %d", what, l.Path, l.Epoch, p, e)
			}
		}
	}
	for _, l := range changed {
		md.issued[l.Path] = max(md.issued[l.Path], l.Epoch)
	}
	return nil
}

func cmpPath(a, b Path) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkMap verifies by brute force everything the map promises: the
// leaves tile the box, each point has one leaf, neighbour lists are exact,
// the holders are exactly the live peers with their expiries, and routing
// reaches the owner.
func (md *model) checkMap(m *Map, src source) error {
	if err := m.Check(); err != nil {
		return err
	}
	if len(m.Holders()) != len(md.expiry) {
		return fmt.Errorf("map holders %v, live peers %d", m.Holders(), len(md.expiry))
	}
	var leaves []*mnode
	var walk func(n *mnode)
	walk = func(n *mnode) {
		if n.leaf() {
			leaves = append(leaves, n)
			return
		}
		walk(n.left)
		walk(n.right)
	}
	walk(m.root)
	if m.Len() == 0 {
		if len(leaves) != 1 || leaves[0].holder != nil || len(m.Leaves()) != 0 {
			return fmt.Errorf("empty map has %d leaves", len(leaves))
		}
		return nil
	}
	vol := 0.0
	for i, a := range leaves {
		if !a.zone.Equal(a.path.Zone(md.dim)) {
			return fmt.Errorf("leaf %q has zone %v, path says %v", a.path, a.zone, a.path.Zone(md.dim))
		}
		if err := a.zone.Validate(md.dim); err != nil {
			return fmt.Errorf("leaf %q: %w", a.path, err)
		}
		exp, live := md.expiry[a.holder.id]
		if !live || !exp.Equal(a.holder.expiry) {
			return fmt.Errorf("leaf %q held by %s (live %v, expiry %v, map says %v)", a.path, a.holder.id, live, exp, a.holder.expiry)
		}
		vol += a.zone.Volume()
		var want []*mnode
		for j, b := range leaves {
			if i == j {
				continue
			}
			if Overlaps(a.zone, b.zone) {
				return fmt.Errorf("leaves %q and %q overlap", a.path, b.path)
			}
			if Abuts(a.zone, b.zone) {
				want = append(want, b)
			}
		}
		if len(want) != len(a.nbrs) {
			return fmt.Errorf("leaf %q lists %d neighbours, %d abut", a.path, len(a.nbrs), len(want))
		}
		for _, b := range want {
			if !slices.Contains(a.nbrs, b) {
				return fmt.Errorf("leaf %q misses neighbour %q", a.path, b.path)
			}
		}
	}
	if math.Abs(vol-1) > 1e-9 {
		return fmt.Errorf("leaf volumes sum to %v", vol)
	}
	for range 8 {
		p := point(src, md.dim, nil)
		p = Clamp(p)
		var owners []PeerID
		for _, l := range leaves {
			if l.zone.Contains(p) {
				owners = append(owners, l.holder.id)
			}
		}
		if len(owners) != 1 {
			return fmt.Errorf("point %v lies in %d leaves: %v", p, len(owners), owners)
		}
		if got, _ := m.Owner(p); got != owners[0] {
			return fmt.Errorf("Owner(%v) = %s, brute force %s", p, got, owners[0])
		}
		// Greedy routing may stall on a point exactly on a corner of
		// split lines (NextHop's ties at distance 0), which clamped
		// coordinates do not produce inside the box: route to a point off
		// the lines.
		q := make(Point, md.dim)
		for i := range q {
			q[i] = src.Float64()
		}
		owner, _ := m.Owner(q)
		from := m.Holders()[src.IntN(m.Len())]
		path, err := m.Route(from, q)
		if err != nil {
			return fmt.Errorf("route %s -> %v: %w", from, q, err)
		}
		if path[len(path)-1] != owner {
			return fmt.Errorf("route %s -> %v ended at %s, owner %s", from, q, path[len(path)-1], owner)
		}
	}
	return nil
}

// expectedHeir computes by brute force who takes the zone of a holder with
// a single zone: its sibling's holder when the sibling is one leaf, else
// the abutting holder with the smallest total volume, ties to the smaller
// ID. It is "" when the holder has several zones or is alone.
func expectedHeir(m *Map, id PeerID) PeerID {
	held := m.Held(id)
	if len(held) != 1 || m.Len() == 1 {
		return ""
	}
	if sib, ok := held[0].Path.Sibling(); ok {
		if l, err := m.Certify(sib); err == nil {
			return l.Holder
		}
	}
	var best PeerID
	bestVol := math.Inf(1)
	for _, nb := range m.Neighbours(id) { // ascending, so ties go to the smaller ID
		if v := m.Volume(nb); v < bestVol {
			best, bestVol = nb, v
		}
	}
	return best
}

// TestMapProperties runs random operation sequences (-map.sequences, 1,000
// by default; the long runs use millions, split over seeds with -map.seed)
// and checks every invariant after every operation.
func TestMapProperties(t *testing.T) {
	n := *sequences
	if testing.Short() {
		n = min(n, 200)
	}
	r := rand.New(rand.NewPCG(*mapSeed, uint64(n)))
	ops := 0
	for s := range n {
		seed := r.Uint64()
		src := rand.New(rand.NewPCG(seed, 1))
		n, err := runSequence(src, 1+src.IntN(64), func() bool { return false })
		ops += n
		if err != nil {
			t.Fatalf("sequence %d (seed %d): %v", s, seed, err)
		}
	}
	t.Logf("%d sequences, %d operations checked", n, ops)
}

// TestMapLargeChurn runs long sequences over a pool of 300 peers, so maps
// grow to many holders and deep trees, with the whole map checked every
// 25 operations and the changes after every one.
func TestMapLargeChurn(t *testing.T) {
	for _, dim := range []int{2, 3, 4} {
		t.Run(fmt.Sprint("d=", dim), func(t *testing.T) {
			src := rand.New(rand.NewPCG(uint64(dim), 77))
			md := &model{dim: dim, ttl: seqTTL, now: t0, expiry: map[PeerID]time.Time{}, issued: map[Path]uint64{}, ids: 300, tick: seqTTL / 2000, every: 25}
			peak, ops := 0, 2000
			if testing.Short() {
				ops = 500
			}
			n, err := md.run(src, ops, func() bool { peak = max(peak, len(md.expiry)); return false })
			if err != nil {
				t.Fatal(err)
			}
			if peak < 100 && !testing.Short() {
				t.Fatalf("the map peaked at %d holders; the test is too small to prove much", peak)
			}
			t.Logf("%d operations, up to %d holders", n, peak)
		})
	}
}

// FuzzMap drives a map with operations read from the fuzz input.
func FuzzMap(f *testing.F) {
	f.Add([]byte{1, 0, 0, 10, 20, 30, 1, 1, 5, 200, 0, 3, 9, 40, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{3, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 5, 5, 5, 5, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{b: data}
		if _, err := runSequence(src, 400, src.done); err != nil {
			t.Fatal(err)
		}
	})
}
