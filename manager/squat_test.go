package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// TestSquattedHostGetsItsNextTask: over the lease protocol, a peer that
// claimed a task and renews without crawling (0 pages, 0 requests, every
// third of a hold) loses the lease at the first renewal past one hold,
// its standing pays for it, and the host's next task is granted within
// minutes. A liar that shows made-up progress at every renewal keeps the
// lease no longer than its task can need (holdFor: 16 h 45 min for the
// default 10,000 pages at 1 s), not for ever.
func TestSquattedHostGetsItsNextTask(t *testing.T) {
	for _, liar := range []bool{false, true} {
		name := map[bool]string{false: "renewals without progress", true: "made-up progress"}[liar]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
			m := newManager(t, t.TempDir(), clk)
			if _, err := m.AddSeeds([]string{"http://squatted.example/"}); err != nil {
				t.Fatal(err)
			}
			q, ph := onePeerOverlay(ctx, t, m)
			m.members.Answer(ph.ID(), entry.Request{Op: entry.OpRenew})
			if err := m.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			tasks, envs := q.take()
			if len(tasks) != 1 {
				t.Fatalf("overlay peer got %d tasks, want 1", len(tasks))
			}
			tk := tasks[0]
			if _, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[0], Proof: q.proof(tk.ID), TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
				t.Fatal(err)
			}
			claimed := clk.now()
			every := m.opts.Leases.LeaseHold / 3
			var renewals int
			for {
				clk.add(every)
				renewals++
				r := lease.Request{Op: lease.Renew, TaskID: tk.ID, Epoch: tk.Lease.Epoch}
				if liar {
					r.Pages = renewals
				}
				_, err := lease.Send(ctx, ph, m.ID(), r)
				if err == nil {
					if clk.now().Sub(claimed) > 24*time.Hour {
						t.Fatalf("%d renewals granted over a day", renewals)
					}
					continue
				}
				if !errors.Is(err, lease.ErrOver) {
					t.Fatalf("renewal %d = %v, want the lease over", renewals, err)
				}
				break
			}
			held := clk.now().Sub(claimed)
			want := m.opts.Leases.LeaseHold + every // the first renewal past one hold
			if liar {
				want = 16*time.Hour + 45*time.Minute + every
			}
			if held > want {
				t.Fatalf("lease held %v (%d renewals), want at most %v", held, renewals, want)
			}
			t.Logf("lease held %v over %d renewals", held, renewals)

			// The host is free again once the clock skew allowance has passed:
			// the manager counts the task lost and grants the next.
			refused := clk.now()
			next := func() bool {
				open, err := m.db.Open()
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range open {
					if o.Host == "squatted.example" && o.Epoch > tk.Lease.Epoch {
						return true
					}
				}
				return false
			}
			for !next() {
				if clk.now().Sub(refused) > 30*time.Minute {
					t.Fatal("no next task for the host within 30 minutes of the lease's end")
				}
				clk.add(30 * time.Second)
				if err := m.Tick(ctx); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("next task granted %v after the lease ended", clk.now().Sub(refused))
			rec, err := m.Storage().PeerRecord(ph.ID().String())
			if err != nil || rec.Lapses != 1 || rec.Streak != 0 {
				t.Fatalf("squatter's record %+v, %v; want one lapse", rec, err)
			}
			lost, err := m.db.Task(tk.ID)
			if err != nil || lost.State != channels.TaskFailed || lost.Stalled == liar {
				t.Fatalf("squatted task %+v, %v; want failed, stalled unless it lied", lost, err)
			}
		})
	}
}

// TestLapsedHostGoesElsewhere: a peer that let a host's lease lapse (it
// claimed and went silent) is sent none of the host's next tasks: the
// manager aims them at another member, and the lapsed peer's claim of
// one, should it get the envelope, is refused. Otherwise a squatter that
// owns the host's zone would get each of its tasks in turn. Four hosts,
// so that tasks sent the usual way (through either member) would reach
// the squatter 15 times in 16.
func TestLapsedHostGoesElsewhere(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	// Short leases: the overlay peers check a task's issue time by the
	// real clock (p2p/admission.MaxClockSkew), so the test clock stays within
	// two minutes of it.
	m := newManagerWith(t, t.TempDir(), clk, func(o *Options) { o.Leases.LeaseHold, o.Leases.ClockSkew = 30*time.Second, 10*time.Second })
	hosts := []string{"a.example", "b.example", "c.example", "d.example"}
	for _, h := range hosts {
		if _, err := m.AddSeeds([]string{"http://" + h + "/"}); err != nil {
			t.Fatal(err)
		}
	}
	q1, squatter := onePeerOverlay(ctx, t, m)
	m.members.Answer(squatter.ID(), entry.Request{Op: entry.OpRenew})
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q1.take()
	if len(tasks) != len(hosts) {
		t.Fatalf("squatter got %d tasks, want %d", len(tasks), len(hosts))
	}
	for i, tk := range tasks {
		if _, err := lease.Send(ctx, squatter, m.ID(), lease.Request{Op: lease.Claim, Task: envs[i], Proof: q1.proof(tk.ID), TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
			t.Fatal(err)
		}
	}
	// It never renews; another volunteer joins meanwhile.
	q2, other := onePeerOverlay(ctx, t, m)
	next := map[string][]byte{}
	for range 22 {
		clk.add(5 * time.Second)
		m.members.Answer(squatter.ID(), entry.Request{Op: entry.OpRenew})
		m.members.Answer(other.ID(), entry.Request{Op: entry.OpRenew})
		if err := m.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := q1.take(); len(got) != 0 {
			t.Fatalf("the lapsed peer was sent %s", got[0].ID)
		}
		got, e := q2.take()
		for i, tk := range got {
			next[tk.Host()] = e[i]
		}
		if len(next) == len(hosts) {
			break
		}
	}
	if len(next) != len(hosts) {
		t.Fatalf("the other member got the next tasks of %d hosts within 110 s, want %d", len(next), len(hosts))
	}
	if lp, err := m.db.Lapsed("a.example", clk.now()); err != nil || lp != squatter.ID().String() {
		t.Fatalf("lapsed peer %q, %v", lp, err)
	}
	env := next["a.example"]
	nt, err := envelope.Open(env, m.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	// Even holding the host's point (a proof the map could have granted),
	// the lapsed peer is refused.
	_, err = lease.Send(ctx, squatter, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: wholeSpaceProof(t, m, squatter.ID(), clk.now()),
		TaskID: nt.ID, Epoch: nt.Lease.Epoch})
	if !errors.Is(err, lease.ErrOver) || !strings.Contains(err.Error(), "lapse") {
		t.Fatalf("the lapsed peer's claim of the next task = %v, want refused", err)
	}
	if _, err := lease.Send(ctx, other, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: q2.proof(nt.ID), TaskID: nt.ID, Epoch: nt.Lease.Epoch}); err != nil {
		t.Fatalf("the other member's claim: %v", err)
	}
}

// TestStolenEnvelopeCannotBeClaimed: an overlay member that got hold of a
// task's signed envelope (it routed the task, or was balanced past) cannot
// claim its host's lease: not without a proof, nor with the owner's proof
// (its certificate is in every heartbeat), nor with a hand-off from the
// owner it signed itself, nor with its own zone's certificate. The
// owner's claim is granted after all of them: the thief held nothing up.
// A real manager and two real overlay peers, which the manager's map
// certified.
func TestStolenEnvelopeCannotBeClaimed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	q1, h1 := onePeerOverlay(ctx, t, m)
	q2, h2 := onePeerOverlay(ctx, t, m)
	seeds := []string{"http://a.example/", "http://b.example/", "http://c.example/", "http://d.example/"}
	if _, err := m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	owner, thief, q := h1, h2, q1
	tasks, envs := q1.take()
	if len(tasks) == 0 {
		owner, thief, q = h2, h1, q2
		tasks, envs = q2.take()
	}
	if len(tasks) == 0 {
		t.Fatal("no task reached either peer")
	}
	tk, env := tasks[0], envs[0]
	ownerProof := q.proof(tk.ID)
	p, err := zonecert.DecodeProof(ownerProof)
	if err != nil || p.Holder() != owner.ID() {
		t.Fatalf("the owner's proof %+v, %v", p, err)
	}
	selfSigned, err := p.Pass(tk.ID, tk.Lease.Epoch, thief.ID(), thief.Peerstore().PrivKey(thief.ID()))
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := selfSigned.MarshalBinary()
	g, err := m.zones.Renew(thief.ID())
	if err != nil || len(g.Held) == 0 {
		t.Fatalf("the thief's zones: %+v, %v", g, err)
	}
	own, _ := zonecert.OwnerProof(g.Held[0]).MarshalBinary()
	for _, tt := range []struct {
		name  string
		proof []byte
	}{
		{"no proof", nil},
		{"the owner's proof", ownerProof},
		{"a hand-off from the owner signed by the thief", forged},
		{"the thief's own zone, which does not hold the target", own},
		{"bytes that are no proof", []byte("trust me")},
	} {
		_, err := lease.Send(ctx, thief, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: tt.proof, TaskID: tk.ID, Epoch: tk.Lease.Epoch})
		if !errors.Is(err, lease.ErrOver) || !strings.Contains(err.Error(), "no proof that this peer may hold the task") {
			t.Fatalf("%s: the thief's claim = %v, want refused for want of a proof", tt.name, err)
		}
	}
	if _, err := lease.Send(ctx, owner, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: ownerProof, TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
		t.Fatalf("the owner's claim after the thief's: %v", err)
	}
}

// TestAimAvoidsPeersThatLapsed: a host's next task after a lapse, aimed
// away from the peer that let it lapse, does not go to another peer that
// let a lease lapse either (a squatter's twin) while a member with
// nothing against it is there.
func TestAimAvoidsPeersThatLapsed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	hs := stripedHosts(ctx, t, m, "127.0.1.1", "127.0.2.1", "127.0.3.1")
	squatter, twin, honest := hs[0], hs[1], hs[2]
	next := channels.Task{ID: "task", Avoid: []string{squatter.ID().String()}}
	if got := aims(t, m, next, 20); got[twin.ID()] == 0 {
		t.Fatalf("before any lapse the twin was never chosen (%v): the test shows nothing", got)
	}
	if err := m.store.Forfeit(twin.ID().String(), "its crawl stalled under the lease"); err != nil {
		t.Fatal(err)
	}
	if got := aims(t, m, next, 20); got[twin.ID()] != 0 || got[honest.ID()] != 20 {
		t.Fatalf("after the twin's lapse, aims %v; want every one at the honest member", got)
	}
}
