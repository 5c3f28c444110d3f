package zones

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// liveness is a Live check that answers for every peer but the dead, and
// counts the checks.
type liveness struct {
	mu     sync.Mutex
	dead   map[peer.ID]bool
	checks map[peer.ID]int
}

func (l *liveness) check(ctx context.Context, id peer.ID) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checks[id]++
	if l.dead[id] {
		return errors.New("no answer")
	}
	return nil
}

func (l *liveness) count(id peer.ID) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checks[id]
}

// TestReportLyingPeers: the manager, not the reporter, decides. A report
// from a peer that is not the suspect's neighbour, or of a suspect that
// answers the manager, changes nothing; a suspect is checked at most once
// per CheckEvery; a suspect that does not answer is removed and the
// grant carries its heirs' zones.
func TestReportLyingPeers(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	live := &liveness{dead: map[peer.ID]bool{}, checks: map[peer.ID]int{}}
	a := f.authority(t, s, Options{Live: live.check})
	ps := peers(t, 16)
	r := rand.New(rand.NewPCG(4, 4))
	for _, p := range ps[:15] {
		must(t)(a.Join(p, point(r)))
	}
	outsider := ps[15]
	suspect := ps[0]
	nbrs := a.Neighbours(suspect)
	var far peer.ID
	for _, p := range ps[1:15] {
		if !slices.Contains(nbrs, p) {
			far = p
			break
		}
	}
	if len(nbrs) < 3 || far == "" {
		t.Fatalf("suspect has %d neighbours and a non-neighbour %q: pick another layout", len(nbrs), far)
	}
	mapBytes := func() []byte {
		var b []byte
		s.View(func(tx kv.Tx) error { b = bytes.Clone(tx.Bucket(Bucket).Get(keyMap)); return nil })
		return b
	}
	before := mapBytes()
	ctx := context.Background()
	refusals := []struct {
		name     string
		reporter peer.ID
		suspect  peer.ID
		want     error
		checks   int // checks of the suspect after the report
	}{
		{"not a neighbour", far, suspect, ErrNotNeighbour, 0},
		{"itself", suspect, suspect, ErrNotNeighbour, 0},
		{"reporter holds no zone", outsider, suspect, ErrJoinAgain, 0},
		{"suspect answers", nbrs[0], suspect, ErrSuspectAnswers, 1},
		{"checked moments ago", nbrs[1], suspect, ErrCheckedRecently, 1},
	}
	for _, tc := range refusals {
		_, err := a.Report(ctx, tc.reporter, tc.suspect)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if got := live.count(tc.suspect); got != tc.checks {
			t.Errorf("%s: suspect checked %d times, want %d", tc.name, got, tc.checks)
		}
	}
	if !bytes.Equal(mapBytes(), before) || !slices.Contains(a.Holders(), suspect) {
		t.Fatal("a refused report changed the map")
	}

	// The suspect dies; once CheckEvery passed a neighbour's report
	// removes it.
	live.dead[suspect] = true
	gone := a.Zones(suspect)
	if _, err := a.Report(ctx, nbrs[2], suspect); !errors.Is(err, ErrCheckedRecently) {
		t.Fatalf("report within CheckEvery: %v, want ErrCheckedRecently", err)
	}
	f.clk.Add(DefaultCheckEvery)
	g, err := a.Report(ctx, nbrs[2], suspect)
	if err != nil {
		t.Fatal(err)
	}
	verify(t, f, g, nbrs[2])
	m := stored(t, s)
	if m.Has(pid(suspect)) || slices.Contains(a.Holders(), suspect) {
		t.Fatal("an unanswering suspect was not removed")
	}
	for _, z := range gone {
		owner, _ := a.Owner(z.Centre())
		covered := false
		for _, c := range append(g.Held, g.Others...) {
			if c.Holder == owner && c.Path.Zone(3).Contains(z.Centre()) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the grant does not certify the heir %s of %v", owner, z.Centre())
		}
	}
	if a.Stats().Evicted != 1 {
		t.Errorf("Stats.Evicted = %d, want 1", a.Stats().Evicted)
	}
	// A second neighbour's report of the removed peer is no error.
	if _, err := a.Report(ctx, nbrs[1], suspect); err != nil {
		t.Errorf("report of a peer removed already: %v", err)
	}
}

// TestReportCutShort: a check cut short by the request's own deadline
// evicts nobody.
func TestReportCutShort(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	a := f.authority(t, s, Options{Live: func(ctx context.Context, _ peer.ID) error {
		<-ctx.Done()
		return ctx.Err()
	}})
	ps := peers(t, 2)
	must(t)(a.Join(ps[0], point(rand.New(rand.NewPCG(5, 5)))))
	must(t)(a.Join(ps[1], point(rand.New(rand.NewPCG(6, 6)))))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := a.Report(ctx, ps[0], ps[1]); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("report cut short: %v, want the deadline", err)
	}
	if a.Len() != 2 {
		t.Error("a check cut short evicted the suspect")
	}
}
