package manager

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/entry"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// TestMemberLocator places a web host from the RTTs that member peers
// measure: five peers at known coordinates report a delay equal to their
// distance from a target coordinate, and the located point must be that
// target mapped through the network's bounds. A manager with fewer
// members than the solver needs refuses to guess.
func TestMemberLocator(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p hosts")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now()}
	bounds := DefaultBounds
	m, err := New(ctx, Options{Dir: t.TempDir(), Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true,
		Bounds: &bounds, Now: clk.now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	web := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(web.Close)
	u, _ := url.Parse(web.URL)

	loc, ok := m.sub.Options().Locator.(*memberLocator)
	if !ok {
		t.Fatalf("a manager with bounds submits with %T, want its member locator", m.sub.Options().Locator)
	}
	if _, err := loc.Locate(ctx, u.Host); err == nil {
		t.Fatal("located a host with no member peers to measure from")
	}

	target := []float64{40, -30, 10}
	for _, vec := range [][]float64{{0, 0, 0}, {80, 0, 0}, {0, 80, 0}, {0, 0, 80}, {-60, -60, 20}} {
		h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		dist := time.Duration(math.Sqrt(sq(vec[0]-target[0])+sq(vec[1]-target[1])+sq(vec[2]-target[2])) * float64(time.Millisecond))
		// The median of 5 connects: one connect on a machine loaded by
		// the race detector and other packages' tests can take 10 ms or
		// more (one sample each failed this test that way).
		meas := rtt.New(rtt.Config{AllowLoopback: true, Samples: 5, Extra: func(string) time.Duration { return dist }})
		c := &wire.Coordinate{Vec: vec}
		h.SetStreamHandler(wire.MeasureProtocol, rtt.Handler(meas, func() *wire.Coordinate { return c }, nil, quiet))
		if err := h.Connect(ctx, m.host.AddrInfo()); err != nil {
			t.Fatal(err)
		}
		if _, err := entry.Ask(ctx, h, m.ID(), entry.Request{Member: true}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := loc.Locate(ctx, u.Host)
	if err != nil {
		t.Fatal(err)
	}
	want := bounds.Map(coord.Coord{Vec: target})
	for i := range want {
		// The real loopback connect time adds to each measured delay:
		// under a loaded machine a few ms. Allow 10 ms of the 240 ms box;
		// the probers stand 40–100 ms from the target, so a wrong solve
		// misses by far more.
		if math.Abs(p[i]-want[i]) > 10.0/240 {
			t.Fatalf("located at %v, want %v", p, want)
		}
	}
}

func sq(x float64) float64 { return x * x }
