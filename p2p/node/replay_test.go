package node

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestReplayedTasksQueuedOnce is the replay attack measured on the old
// code (a genuine task, even one issued in 1970, re-inserted by a member
// with a target point in every zone was queued at 5 of 5 peers). The
// manager signs three genuine tasks: one current, one issued in 1970 whose
// lease ended long ago, and one issued an hour ago whose lease ends in a
// few seconds. After the genuine inserts, one member replays every
// envelope to every other peer, straight and load-balanced, with a point
// of that peer's zone and with the signed target, and through routing;
// once more after the short lease ended. No task may be queued on more
// than one peer, the expired one on none, and nothing after its lease.
func TestReplayedTasksQueuedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 500 * time.Millisecond})
	for range 6 {
		c.add(ctx)
	}
	c.waitStable(30 * time.Second)
	attacker := c.members[0]
	// The targets lie outside the attacker's zones: a member may still
	// balance a task it owns to each of its neighbours once (the host
	// lease, not the overlay, stops the extra crawls; docs/developer/overlay.md).
	point := func() can.Point {
		for {
			if p := c.randomPoint(); c.owner(p) != attacker {
				return p
			}
		}
	}
	now := time.Now().UTC()
	current := c.task("current", point())
	ancient := c.task("ancient", point())
	ancient.Issued = time.Unix(0, 0).UTC()
	ancient.Lease.Expires = ancient.Issued.Add(time.Hour)
	live := c.task("live", point())
	live.Issued = now.Add(-time.Hour)
	live.Lease.Expires = now.Add(4 * time.Second)
	tasks := []*task.Task{current, ancient, live}
	envs := map[string][]byte{}
	for i, tk := range tasks {
		envs[tk.ID] = c.seal(tk)
		from := c.members[1+i%(len(c.members)-1)]
		_, _, err := from.n.Insert(ctx, envs[tk.ID], tk.Target)
		switch {
		case tk == ancient && !errors.Is(err, admission.ErrNoLease):
			t.Errorf("genuine insert of the expired task: %v, want %v", err, admission.ErrNoLease)
		case tk != ancient && err != nil:
			t.Errorf("genuine insert of %s: %v", tk.ID, err)
		}
	}

	replays, taken := 0, []string{}
	replay := func(round string) {
		for _, tk := range tasks {
			env := envs[tk.ID]
			for _, p := range c.members {
				if p == attacker {
					continue
				}
				inZone := p.n.Zones()[0].Centre()
				for _, target := range []can.Point{inZone, tk.Target} {
					for _, lbi := range []bool{false, true} {
						for _, ttl := range []uint32{0, 3} {
							replays++
							resp, err := send(ctx, attacker.h, p.h.AddrInfo(), &wire.Insert{Envelope: env, Target: target, Ttl: ttl, Lbi: lbi})
							if err == nil && resp.Accepted {
								taken = append(taken, fmt.Sprintf("%s: %s sent to %s (target %v, lbi %v) queued at %s",
									round, tk.ID, p.h.ID().ShortString(), target, lbi, peerShort(resp.Owner)))
							}
						}
					}
					replays++
					if owner, _, err := attacker.n.Insert(ctx, env, target); err == nil {
						taken = append(taken, fmt.Sprintf("%s: %s routed to %v queued at %s", round, tk.ID, target, owner.ShortString()))
					}
				}
			}
		}
	}
	replay("live lease")
	time.Sleep(time.Until(live.Lease.Expires) + 100*time.Millisecond)
	replay("after the lease")

	var sum Stats
	for _, m := range c.members {
		st := m.n.Stats()
		sum.Accepted += st.Accepted
		sum.Expired += st.Expired
		sum.Mistargeted += st.Mistargeted
		sum.Misaimed += st.Misaimed
		sum.Replayed += st.Replayed
		sum.IssuedAhead += st.IssuedAhead
		sum.Invalid += st.Invalid
		m.q.mu.Lock()
		late := m.q.late
		m.q.mu.Unlock()
		if len(late) > 0 {
			t.Errorf("%s queued %v after their leases ended", m.h.ID().ShortString(), late)
		}
	}
	t.Logf("%d replays by one member of %d peers; refusals: %d expired, %d mistargeted, %d misaimed, %d seen before; %d accepted in all",
		replays, len(c.members), sum.Expired, sum.Mistargeted, sum.Misaimed, sum.Replayed, sum.Accepted)
	for _, s := range taken {
		t.Errorf("replay taken: %s", s)
	}
	counts := c.countTasks() // copies in all queues together
	for _, tk := range tasks {
		want := 1
		if tk == ancient {
			want = 0
		}
		if counts[tk.ID] != want {
			t.Errorf("%s queued %d times in all, want %d", tk.ID, counts[tk.ID], want)
		}
	}
	if sum.Accepted != 2 {
		t.Errorf("%d tasks accepted in all, want the 2 genuine inserts", sum.Accepted)
	}
	for name, n := range map[string]int64{"expired": sum.Expired, "mistargeted": sum.Mistargeted, "misaimed": sum.Misaimed, "seen before": sum.Replayed} {
		if n == 0 {
			t.Errorf("no replay refused as %s", name)
		}
	}
}

func peerShort(b []byte) string {
	id, err := wire.ValidatePeerID(b)
	if err != nil {
		return "?"
	}
	return id.ShortString()
}
