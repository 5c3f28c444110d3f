package host

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestRendezvousDiscovery starts six hosts bootstrapped from the first; each
// advertises under the overlay rendezvous and must find all five others.
func TestRendezvousDiscovery(t *testing.T) {
	const n = 6
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	boot := newTestHost(t, Config{Public: true, ListenAddrs: loopback[:1]})
	hosts := []*Host{boot}
	for i := 1; i < n; i++ {
		hosts = append(hosts, newTestHost(t, Config{Public: true, ListenAddrs: loopback[:1], Bootstrap: boot.P2PAddrs()}))
	}
	for _, h := range hosts[1:] {
		if err := h.Bootstrap(ctx); err != nil {
			t.Fatalf("bootstrap: %v", err)
		}
	}
	// Wait until the bootstrap peer's routing table holds everyone, so
	// advertisements reach the peers closest to the rendezvous key.
	waitFor(ctx, t, func() bool { return boot.DHT().RoutingTable().Size() >= n-1 })
	for _, h := range hosts[1:] {
		if err := h.DHT().Bootstrap(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hosts {
		if _, err := h.Advertise(ctx, OverlayRendezvous); err != nil {
			t.Fatalf("advertise from %s: %v", h.ID(), err)
		}
	}
	for i, h := range hosts {
		var found map[peer.ID]bool
		waitFor(ctx, t, func() bool {
			infos, err := h.FindPeers(ctx, OverlayRendezvous, 0)
			if err != nil {
				t.Logf("host %d: %v", i, err)
				return false
			}
			found = map[peer.ID]bool{}
			for _, ai := range infos {
				found[ai.ID] = true
			}
			return len(found) == n-1
		})
		for _, o := range hosts {
			if o != h && !found[o.ID()] {
				t.Errorf("host %d did not find %s", i, o.ID())
			}
		}
		if found[h.ID()] {
			t.Errorf("host %d found itself", i)
		}
	}
}

// waitFor polls cond until it holds or ctx ends; the test fails on timeout.
func waitFor(ctx context.Context, t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("condition not met before deadline")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
