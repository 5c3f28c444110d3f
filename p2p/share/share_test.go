package share

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// queue is a Queue of waiting tasks behind one busy thread: every task
// could start at once elsewhere.
type queue struct {
	mu      sync.Mutex
	tasks   []*task.Task
	offered map[string]*task.Task
}

func (q *queue) Spare() (int, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks), 0
}

func (q *queue) Offer(_ context.Context, rank func(*task.Task) (float64, bool)) (*task.Task, []byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	best, bestR := -1, 0.0
	for i, t := range q.tasks {
		if r, ok := rank(t); ok && (best < 0 || r >= bestR) {
			best, bestR = i, r
		}
	}
	if best < 0 {
		return nil, nil, nil
	}
	t := q.tasks[best]
	q.tasks = slices.Delete(q.tasks, best, best+1)
	q.offered[t.ID] = t
	return t, []byte(t.ID), nil
}

func (q *queue) Settle(_ context.Context, id string, taken bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.offered[id]
	if !ok {
		return fmt.Errorf("task %s was not offered", id)
	}
	delete(q.offered, id)
	if !taken {
		q.tasks = append(q.tasks, t)
	}
	return nil
}

func (q *queue) ids() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []string
	for _, t := range q.tasks {
		out = append(out, t.ID)
	}
	slices.Sort(out)
	return out
}

// overlay names fixed takers and answers offers by its refuse rule.
type overlay struct {
	zones  []can.Zone
	mu     sync.Mutex
	takers []Taker
	refuse func(to Taker, t *task.Task) error
	offers []string // "taker:task", in order
}

// maxOffers ends a round that keeps offering (a sharer that forgets a
// refusal would offer the same task for ever).
const maxOffers = 50

func (o *overlay) Takers() ([]can.Zone, []Taker, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.zones, slices.Clone(o.takers), len(o.offers) < maxOffers
}

func (o *overlay) Offer(_ context.Context, to Taker, t *task.Task, _ []byte, _ can.Point) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.offers = append(o.offers, string(to.ID)+":"+t.ID)
	if o.refuse != nil {
		if err := o.refuse(to, t); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (o *overlay) offered() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.offers)
}

var (
	half = can.Zone{Lo: can.Point{0, 0}, Hi: can.Point{0.5, 1}}
	mine = can.Point{0.25, 0.5}
)

// newTask returns a waiting task on host h aimed at point p.
func newTask(id, h string, p can.Point) *task.Task {
	return &task.Task{ID: id, Target: p, Lease: task.Lease{Host: h, Epoch: 1}}
}

func newSharer(t *testing.T, o *overlay, q *queue, measured map[string]time.Duration) *Sharer {
	t.Helper()
	s, err := New(o, q, 2, func(h string) (time.Duration, bool) {
		d, ok := measured[h]
		return d, ok
	}, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRoundGivesTheFarthestAway: one offer per task, the farthest host
// first and an unmeasured one before it; tasks pinned to this peer or
// aimed outside its zones stay.
func TestRoundGivesTheFarthestAway(t *testing.T) {
	q := &queue{offered: map[string]*task.Task{}, tasks: []*task.Task{
		newTask("near", "near.example", mine),
		newTask("far", "far.example", mine),
		newTask("unmeasured", "new.example", mine),
		newTask("outside", "far.example", can.Point{0.75, 0.5}),
		newTask("short", "far.example", can.Point{0.25}),
	}}
	pinned := newTask("pinned", "far.example", mine)
	pinned.Pinned = true
	q.tasks = append(q.tasks, pinned)
	o := &overlay{zones: []can.Zone{half}, takers: []Taker{{ID: "a", RTT: time.Millisecond}}}
	newSharer(t, o, q, map[string]time.Duration{"near.example": 10 * time.Millisecond, "far.example": 90 * time.Millisecond}).Round(context.Background())
	if got, want := o.offered(), []string{"a:unmeasured", "a:far", "a:near"}; !slices.Equal(got, want) {
		t.Errorf("offers %v, want %v", got, want)
	}
	if got, want := q.ids(), []string{"outside", "pinned", "short"}; !slices.Equal(got, want) {
		t.Errorf("left waiting %v, want %v", got, want)
	}
}

// TestTooFarRemembered: a taker that refused a host as too far
// (admission.ErrTooFar, as the insert protocol carries it back) is not
// offered that host's tasks again, in this round or later ones, but is
// offered other hosts; another refusal is not remembered per host.
func TestTooFarRemembered(t *testing.T) {
	q := &queue{offered: map[string]*task.Task{}, tasks: []*task.Task{
		newTask("f1", "far.example", mine),
		newTask("f2", "far.example", mine),
		newTask("n1", "near.example", mine),
	}}
	o := &overlay{zones: []can.Zone{half}, takers: []Taker{{ID: "a", RTT: time.Millisecond}}}
	o.refuse = func(_ Taker, t *task.Task) error {
		if t.Lease.Host == "far.example" {
			return admission.Refusal(fmt.Sprintf("task %s: %v", t.ID, admission.ErrTooFar))
		}
		return nil
	}
	s := newSharer(t, o, q, map[string]time.Duration{"far.example": 90 * time.Millisecond, "near.example": 10 * time.Millisecond})
	for range 3 {
		s.Round(context.Background())
	}
	// f2 ranks as f1 and would start last: the first offer.
	if got, want := o.offered(), []string{"a:f2", "a:n1"}; !slices.Equal(got, want) {
		t.Errorf("offers %v, want %v", got, want)
	}
	if got, want := q.ids(), []string{"f1", "f2"}; !slices.Equal(got, want) {
		t.Errorf("left waiting %v, want %v", got, want)
	}
	// Another taker has not refused the host.
	o.mu.Lock()
	o.takers, o.refuse = append(o.takers, Taker{ID: "b", RTT: 2 * time.Millisecond}), nil
	o.mu.Unlock()
	s.Round(context.Background())
	if got := o.offered()[2:]; !slices.Equal(got, []string{"b:f2", "b:f1"}) {
		t.Errorf("offers to a second taker %v, want b:f2, b:f1", got)
	}
}

// TestFarGiftsCounted: a peer two hops away is given as many tasks as
// the idle threads relayed for it, and no more while that count stays;
// one that refused is given none until its count changes.
func TestFarGiftsCounted(t *testing.T) {
	q := &queue{offered: map[string]*task.Task{}}
	for i := range 8 {
		q.tasks = append(q.tasks, newTask(fmt.Sprint("t", i), "h.example", mine))
	}
	far := func(id peer.ID, relayed int) Taker {
		return Taker{ID: id, Far: true, Relayed: relayed, Zones: []can.Zone{half}}
	}
	o := &overlay{zones: []can.Zone{half}, takers: []Taker{far("a", 2), far("b", 0)}}
	s := newSharer(t, o, q, nil)
	count := func(prefix string) int {
		k := 0
		for _, x := range o.offered() {
			if x[0] == prefix[0] {
				k++
			}
		}
		return k
	}
	s.Round(context.Background())
	s.Round(context.Background())
	if got := count("a"); got != 2 {
		t.Fatalf("a, 2 idle threads relayed, was offered %d tasks over two rounds: %v", got, o.offered())
	}
	if got := count("b"); got != 0 {
		t.Fatalf("b, no idle thread relayed, was offered %d tasks", got)
	}
	// a's count changes: its neighbours heard of the gifts. It refuses.
	o.mu.Lock()
	o.takers = []Taker{far("a", 1)}
	o.refuse = func(Taker, *task.Task) error { return admission.Refusal(admission.ErrSeen.Error()) }
	o.mu.Unlock()
	s.Round(context.Background())
	s.Round(context.Background())
	if got := count("a"); got != 3 {
		t.Fatalf("a was offered %d tasks in all, want 3: one more, refused, then none", got)
	}
	o.mu.Lock()
	o.takers, o.refuse = []Taker{far("a", 2)}, nil
	o.mu.Unlock()
	s.Round(context.Background())
	if got := count("a"); got != 5 {
		t.Fatalf("a was offered %d tasks in all, want 5: two more once its count changed", got)
	}
}

// TestNearest: of the takers a waiting task may go to, the one this peer
// measured nearest; the zones decide only while no taker's round trip is
// known. Before, a volunteer still standing at the hash of its peer ID
// shared with the neighbour whose zone lay nearest the target: anywhere
// on the network.
func TestNearest(t *testing.T) {
	target := can.Point{0.3, 0.3}
	// a's zone abuts the target's; b's lies across the space but b sits
	// 5 ms from the sharer on the network, a 150 ms.
	a := Taker{ID: "a", Zones: []can.Zone{{Lo: can.Point{0.5, 0}, Hi: can.Point{1, 0.5}}}, RTT: 150 * time.Millisecond}
	b := Taker{ID: "b", Zones: []can.Zone{{Lo: can.Point{0.5, 0.5}, Hi: can.Point{1, 1}}}, RTT: 5 * time.Millisecond}
	with := func(k Taker, rtt time.Duration) Taker { k.RTT = rtt; return k }
	for _, tc := range []struct {
		name   string
		takers []Taker
		want   peer.ID
	}{
		{"measured", []Taker{a, b}, "b"},
		{"in either order", []Taker{b, a}, "b"},
		{"a tie to the smaller ID", []Taker{with(b, a.RTT), a}, "a"},
		{"one unmeasured", []Taker{with(a, 0), with(b, a.RTT)}, "b"},
		{"none measured", []Taker{with(a, 0), with(b, 0)}, "a"},
		{"none", nil, ""},
	} {
		if got := Nearest(tc.takers, target).ID; got != tc.want {
			t.Errorf("%s: shared with %s, want %s", tc.name, got, tc.want)
		}
	}
}
