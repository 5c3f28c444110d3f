package swarm

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// TestCoordinatePlacement runs the coordinate CAN, the default, over
// processes with emulated latency: the manager trains the CAN space's
// bounds from the members' coordinates and every client adopts them; once
// the clients have had time to move to their Vivaldi coordinates, every
// host the manager submits is located from
// members' measurements (not placed by the hash of its name) and lands
// with a peer whose mapped coordinate is nearer the host's point than
// members are on average, and whose emulated round trip to the host is
// shorter than the clients' on average. Load balancing on insert is
// off, so each task stays with the owner of its host's point.
func TestCoordinatePlacement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	const peers, hosts = 6, 12
	s := startSwarm(t, Config{Peers: peers, Hosts: hosts, Seed: 5, DeferSeeds: true,
		Web:         fixture.DemoOptions{MaxPages: 4},
		ManagerArgs: []string{"--assignment", "can"},
		ClientArgs:  []string{"--heartbeat", "500ms"},
		Client:      func(c *config.Config) { c.QueueLength, c.Overload = 1000, 1000 },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// 90 heartbeat intervals: enough for the 100 Vivaldi samples and the
	// turn (at most 32 intervals) a client waits for before its first move.
	// Then up to 45 s more while fewer than half the clients hold their
	// mapped point: coordinates are still settling.
	time.Sleep(45 * time.Second)
	var (
		pl  Placement
		err error
	)
	start := time.Now()
	pctx, pcancel := context.WithTimeout(ctx, 45*time.Second)
	poll(pctx, 5*time.Second, func() (bool, error) {
		pl, err = s.Placement(ctx)
		return err != nil || 2*pl.Held >= peers, nil
	})
	pcancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("placement before the hosts, %v after the first look: %+v", time.Since(start).Round(time.Second), pl)
	if err := s.AddSeeds(ctx); err != nil {
		t.Fatal(err)
	}
	var hp HostPlacement
	err = poll(ctx, time.Second, func() (bool, error) {
		hp, err = s.HostPlacement(ctx)
		return err == nil && hp.Hosts == hosts, nil
	})
	if err != nil {
		t.Fatalf("hosts queued: %+v, %v", hp, err)
	}
	t.Logf("hosts: %+v", hp)
	if hp.BoundsEpoch == 0 {
		t.Error("the manager never trained the CAN space's bounds from the members' coordinates")
	}
	// Members hear of trained bounds at their next renewal (10 s).
	tctx, tcancel := context.WithTimeout(ctx, 30*time.Second)
	poll(tctx, time.Second, func() (bool, error) {
		pl, err = s.Placement(ctx)
		return err != nil || pl.Trained == pl.Clients, nil
	})
	tcancel()
	if err != nil || pl.Trained != pl.Clients {
		t.Errorf("%d of %d clients use the trained bounds (%v)", pl.Trained, pl.Clients, err)
	}
	t.Logf("placement after the hosts: %+v", pl)
	if hp.Located != hosts {
		t.Errorf("%d of %d hosts located from measurements, want all (the rest were placed by the hash of their name)", hp.Located, hosts)
	}
	if !(hp.OwnerRTT < hp.ClientRTT) {
		t.Errorf("mean emulated RTT from a host to its crawler %.1f ms, to all clients %.1f ms: want the crawler nearer", hp.OwnerRTT, hp.ClientRTT)
	}
	if !(hp.OwnerDist < hp.PeerDist) {
		t.Errorf("mean CAN distance from a host to its owner's mapped coordinate %.3f, to members' %.3f: want the owner nearer", hp.OwnerDist, hp.PeerDist)
	}
}
