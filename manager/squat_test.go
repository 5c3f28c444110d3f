package manager

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/entry"
	"github.com/hivecrawl/hivecrawl/manager/lease"
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
			m.entry.Answer(ph.ID(), entry.Request{Member: true})
			if err := m.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			tasks, envs := q.take()
			if len(tasks) != 1 {
				t.Fatalf("overlay peer got %d tasks, want 1", len(tasks))
			}
			tk := tasks[0]
			if _, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[0], TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
				t.Fatal(err)
			}
			claimed := clk.now()
			every := m.opts.LeaseHold / 3
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
			want := m.opts.LeaseHold + every // the first renewal past one hold
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
