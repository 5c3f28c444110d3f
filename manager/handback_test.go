package manager

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/task"
)

// leavingQueue is a leaving peer's queue: it keeps what it is given,
// drains it for the handover, and gives back what no neighbour queued
// to the manager as a client does (report.HandedBack).
type leavingQueue struct {
	memQueue
	h       *host.Host
	manager peer.ID
}

var _ node.Returner = (*leavingQueue)(nil)

func (q *leavingQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	_, envs := q.take()
	return envs, nil, nil
}

func (q *leavingQueue) Return(ctx context.Context, envs [][]byte) error {
	for _, e := range envs {
		if _, err := report.Send(ctx, q.h, q.manager, report.Report{Task: e, Reason: report.HandedBack}); err != nil {
			return err
		}
	}
	return nil
}

// fullQueue refuses every task: a neighbour whose queue is full.
type fullQueue struct{}

func (fullQueue) Enqueue(context.Context, *task.Task, []byte, []byte) error {
	return node.ErrQueueFull
}
func (fullQueue) Load() (int, int64)                                { return 0, 0 }
func (fullQueue) Drain(context.Context) ([][]byte, [][]byte, error) { return nil, nil, nil }

// TestLeaveOntoFullQueueReissued: an overlay peer holding a task leaves
// gracefully; its only neighbour takes its zone but has no room for the
// task. The task comes back to the manager, which ends it as handed back
// (no failure of the channel) and issues the host again at the next
// tick, instead of waiting for the task's deadline.
func TestLeaveOntoFullQueueReissued(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	if _, err := m.AddSeeds([]string{"http://a.example/"}); err != nil {
		t.Fatal(err)
	}
	newPeer := func(q node.Queue, p can.Point) (*node.Node, *host.Host) {
		h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		n, err := node.New(h, q, node.Config{Dim: 2, Point: p, Manager: m.PublicKey(), Heartbeat: time.Hour, HandoverPause: -1, Logger: quiet,
			Authority: entry.Client{Host: h, Manager: m.ID()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		return n, h
	}
	lq := &leavingQueue{manager: m.ID()}
	leaver, lh := newPeer(lq, can.Point{0.25, 0.5})
	lq.h = lh
	if err := lh.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	if err := leaver.Join(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(m.sub.EntryPeers()) == 1 })
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	var id string
	waitFor(t, func() bool {
		lq.mu.Lock()
		defer lq.mu.Unlock()
		if len(lq.tasks) == 1 {
			id = lq.tasks[0].ID
		}
		return id != ""
	})

	heir, hh := newPeer(fullQueue{}, can.Point{0.75, 0.5})
	if err := hh.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	if err := heir.Join(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	sctx, stop := context.WithCancel(ctx)
	for _, n := range []*node.Node{leaver, heir} {
		wg.Go(func() { n.Serve(sctx) })
	}
	defer wg.Wait()
	defer stop()
	waitFor(t, func() bool { return len(leaver.Neighbours()) == 1 })

	if err := leaver.Leave(ctx); err != nil {
		t.Fatalf("leave: %v", err)
	}
	if len(heir.Zones()) == 0 {
		t.Fatal("the heir did not take the zone")
	}
	tk, err := m.db.Task(id)
	if err != nil || tk.State != channels.TaskCancelled || tk.Reason != channels.ReasonHandedBack {
		t.Fatalf("task after the leave: %s (%q), %v; want cancelled as handed back", tk.State, tk.Reason, err)
	}
	c, _ := m.db.Get(tk.Channel)
	if c.Failures != 0 || c.Pending != 0 || !c.CrawlSoon {
		t.Fatalf("channel after the hand-back: failures %d pending %d crawl soon %v", c.Failures, c.Pending, c.CrawlSoon)
	}
	clk.add(time.Minute) // the host's politeness wait after the leaver
	if err := m.Tick(ctx); err != nil {
		t.Logf("tick: %v", err) // the only peer's queue is full: the send may fail
	}
	if c, _ := m.db.Get(tk.Channel); c.Round != 2 {
		t.Fatalf("channel at round %d after the next tick; want its host issued again (round 2)", c.Round)
	}
}
