package zones

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// TestTwoManagersOnePostgres: two authorities on one PostgreSQL database
// (as two managers sharing the operator's key) interleave joins, moves,
// leaves, renewals and expiry runs. The stored map still tiles the space,
// holds exactly the peers that should hold zones, each manager's view
// catches up with it, and no two certificates either granted name
// overlapping zones under one epoch for different holders (no change was
// lost or made twice).
func TestTwoManagersOnePostgres(t *testing.T) {
	srv := pgtest.Start(t)
	f := newFixture(t)
	sa, sb := openPostgres(t, srv.DSN), openPostgres(t, srv.DSN)
	defer sa.Close()
	defer sb.Close()
	auth := []*Authority{f.authority(t, sa, Options{}), f.authority(t, sb, Options{})}
	ps := peers(t, 40)
	const opsEach = 300

	var (
		mu     sync.Mutex
		issued = map[uint64][]zonecert.Cert{}
		member = map[peer.ID]bool{}
	)
	record := func(g Grant) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range append(g.Held, g.Others...) {
			issued[c.Epoch] = append(issued[c.Epoch], c)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			mine := ps[w*20 : w*20+20] // each peer asks one manager...
			for i := range opsEach {
				a := auth[w]
				if r.IntN(4) == 0 {
					a = auth[1-w] // ...mostly: a quarter of its requests go to the other
				}
				p := mine[r.IntN(len(mine))]
				mu.Lock()
				in := member[p]
				mu.Unlock()
				var (
					g   Grant
					err error
				)
				switch k := r.IntN(10); {
				case !in || k == 0:
					g, err = a.Join(p, point(r))
					in = err == nil
				case k == 1:
					g, err = a.Leave(p)
					in = in && err != nil
				case k == 2:
					g, err = a.Move(p, point(r))
				case k == 3:
					_, err = a.Expire()
				default:
					g, err = a.Renew(p)
				}
				if err != nil {
					errs <- fmt.Errorf("op %d of manager %d for %s: %w", i, w, p, err)
					return
				}
				record(g)
				mu.Lock()
				member[p] = in
				mu.Unlock()
				if i%10 == 0 {
					f.clk.Add(10 * time.Millisecond) // nobody expires in this test
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m := stored(t, sa) // checked: one tiling
	var want []can.PeerID
	for p, in := range member {
		if in {
			want = append(want, pid(p))
		}
	}
	slices.Sort(want)
	if got := m.Holders(); !slices.Equal(got, want) {
		var lost, extra []can.PeerID
		for _, id := range want {
			if !slices.Contains(got, id) {
				lost = append(lost, id)
			}
		}
		for _, id := range got {
			if !slices.Contains(want, id) {
				extra = append(extra, id)
			}
		}
		t.Fatalf("stored holders: %d, want %d; missing %v, extra %v", len(got), len(want), lost, extra)
	}
	for i, a := range auth {
		if _, err := a.Expire(); err != nil { // reads the stored state
			t.Fatal(err)
		}
		a.mu.Lock()
		same := slices.EqualFunc(a.m.Leaves(), m.Leaves(), func(x, y can.Leaf) bool {
			return x.Path == y.Path && x.Holder == y.Holder && x.Epoch == y.Epoch
		})
		a.mu.Unlock()
		if !same {
			t.Errorf("manager %d's map differs from the stored one", i)
		}
	}
	for e, cs := range issued {
		for i := range cs {
			for _, d := range cs[i+1:] {
				if cs[i].Path.Overlaps(d.Path) && (cs[i].Path != d.Path || cs[i].Holder != d.Holder) {
					t.Fatalf("epoch %d certifies %q for %s and %q for %s", e, cs[i].Path, cs[i].Holder, d.Path, d.Holder)
				}
			}
		}
	}
	st := [2]Stats{auth[0].Stats(), auth[1].Stats()}
	t.Logf("transactions run again after a conflict: %d and %d; map loads %d and %d; writes %d and %d; epochs %d",
		sa.Retries(), sb.Retries(), st[0].Loads, st[1].Loads, st[0].Writes, st[1].Writes, m.Epoch())
	if st[0].Loads < 2 || st[1].Loads < 2 {
		t.Error("a manager never read the other's changes")
	}
}

// TestNeighbourExpiryAcrossManagers: a holder that renews with one
// manager is certified to its neighbours by the other with that renewal's
// expiry once the other has run Expire, which reads every renewal row.
func TestNeighbourExpiryAcrossManagers(t *testing.T) {
	srv := pgtest.Start(t)
	f := newFixture(t)
	sa, sb := openPostgres(t, srv.DSN), openPostgres(t, srv.DSN)
	defer sa.Close()
	defer sb.Close()
	a, b := f.authority(t, sa, Options{}), f.authority(t, sb, Options{})
	ps := peers(t, 2)
	must(t)(a.Join(ps[0], can.Point{0.2, 0.5, 0.5}))
	must(t)(a.Join(ps[1], can.Point{0.8, 0.5, 0.5}))
	f.clk.Add(20 * time.Second)
	must(t)(b.Renew(ps[1]))
	if _, err := a.Expire(); err != nil {
		t.Fatal(err)
	}
	g := must(t)(a.Renew(ps[0]))
	want := f.clk.Now().Add(DefaultTTL)
	if len(g.Others) != 1 || !g.Others[0].Expiry.Equal(want) {
		t.Fatalf("neighbour certified %+v, want expiry %v", g.Others, want)
	}
	if _, err := b.Renew(ps[0]); err != nil || errors.Is(err, ErrJoinAgain) {
		t.Fatal(err)
	}
}
