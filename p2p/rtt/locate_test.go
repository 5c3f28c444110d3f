package rtt

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// TestLocatorRefutesALyingProber: nine probers on PlanetLab's emulated
// latencies measure twenty web hosts; one of them answers every
// measurement with a round trip of 1 µs. The locator never names it the
// host's nearest where it is really over 100 ms away, nor fits its word
// into the host's coordinate; for most hosts it names a member really as
// near as the nearest, to within tieMs.
//
// The loopback connect under each emulated round trip is real, and on a
// busy machine it varies by a millisecond or more: members whose round
// trips to a host differ by less (on PlanetLab, the two nearest to a
// host often do) are a tie no measurement can part, so the test does
// not ask which of them is named.
func TestLocatorRefutesALyingProber(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	if testing.Short() {
		t.Skip("ten libp2p hosts")
	}
	const probers, hosts = 9, 20
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := rand.New(rand.NewPCG(11, 12))
	m := latency.PlanetLab()
	perm := r.Perm(m.Len())
	peerNodes, hostNodes := perm[:probers], perm[probers:probers+hosts]
	clients, err := coord.Converge(m, peerNodes, can.DefaultDim, 200, r)
	if err != nil {
		t.Fatal(err)
	}
	e := emulate.New(m)
	cfg := host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, Logger: quiet}
	asker, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { asker.Close() })
	const liar = 0
	ids := make([]peer.ID, probers)
	for i := range probers {
		h, err := host.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		if err := e.AssignPeer(h.ID(), peerNodes[i]); err != nil {
			t.Fatal(err)
		}
		extra := e.For(h.ID()).Host
		if i == liar {
			extra = func(string) time.Duration { return -time.Hour } // answers 1 µs
		}
		meas := New(Config{AllowLoopback: true, Samples: 1, Extra: extra})
		c := clients[i].Coord()
		h.SetStreamHandler(wire.MeasureProtocol, Handler(meas, func() coord.Coord { return c }, nil, quiet))
		asker.Peerstore().AddAddrs(h.ID(), h.Addrs(), time.Hour)
		ids[i] = h.ID()
	}
	loc := NewLocator(asker, coord.Bounds{}, rand.New(rand.NewPCG(5, 6)))
	const tieMs = 5
	var won, wonFar, near int
	for j := range hosts {
		ip := fmt.Sprintf("127.0.2.%d", j+1)
		l, err := e.ListenHost(ip, hostNodes[j])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		addr := l.Addr().String()
		got, err := loc.Solve(ctx, addr, ids)
		if err != nil {
			t.Fatalf("locate host %d: %v", j, err)
		}
		// The liar's true round trip counts: where it really is the
		// nearest, naming it is right.
		bestRTT := time.Hour
		for _, id := range ids {
			bestRTT = min(bestRTT, e.For(id).Host(ip))
		}
		liarRTT := e.For(ids[liar]).Host(ip)
		gotRTT, named := e.HostRTT(got.Nearest, ip)
		if !named {
			t.Errorf("host %d: no member named nearest", j)
			continue
		}
		if got.Nearest == ids[liar] {
			won++
			if liarRTT > 100*time.Millisecond {
				wonFar++
			}
		}
		if gotRTT <= bestRTT+tieMs*time.Millisecond {
			near++
		} else {
			t.Logf("host %d: named a member %v away where the nearest is %v", j, gotRTT, bestRTT)
		}
	}
	t.Logf("the lying prober named nearest for %d of %d hosts (%d it is over 100 ms from); a member within %d ms of the nearest for %d", won, hosts, wonFar, tieMs, near)
	if wonFar > 0 {
		t.Errorf("the lying prober was named nearest for %d hosts it is over 100 ms from, want none", wonFar)
	}
	if near < hosts*3/4 {
		t.Errorf("a member within %d ms of the nearest named for %d of %d hosts, want at least three quarters", tieMs, near, hosts)
	}
}
