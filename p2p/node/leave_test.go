package node

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// returningQueue is a memQueue that can give tasks back to the manager
// (Returner), recording what it gave.
type returningQueue struct {
	*memQueue
	mu       sync.Mutex
	returned []string // task IDs
	manager  func(env []byte) string
}

var _ Returner = (*returningQueue)(nil)

func (q *returningQueue) Return(_ context.Context, envs [][]byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range envs {
		q.returned = append(q.returned, q.manager(e))
	}
	return nil
}

// TestLeaveHandsBackWhatNoOneQueues: a leaving peer whose heir's queue
// is full, or whose every neighbour refuses the handover, gives the
// tasks not queued back to the manager: no task is dropped, none is in
// two places.
func TestLeaveHandsBackWhatNoOneQueues(t *testing.T) {
	for _, tt := range []struct {
		name string
		// heirCap is the heir's queue capacity; refuse makes it refuse the
		// handover whole (it is leaving too).
		heirCap int
		refuse  bool
		// tasks are the leaver's (default 3); wantHeir and wantBack how
		// many of them the heir queues and the manager gets back.
		tasks              int
		wantHeir, wantBack int
	}{
		{name: "heir's queue full", heirCap: 1, wantHeir: 1, wantBack: 2},
		{name: "heir's queue room for all", heirCap: 5, wantHeir: 3, wantBack: 0},
		{name: "handover refused", heirCap: 5, refuse: true, wantHeir: 0, wantBack: 3},
		// More tasks than one batch carries: the heir's count of them
		// stays within what a response may say.
		{name: "many tasks", tasks: wire.MaxHandoverTasks + 88, heirCap: wire.MaxHandoverTasks + 8, wantHeir: wire.MaxHandoverTasks + 8, wantBack: 80},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := newCluster(t, Config{Heartbeat: time.Hour, HandoverPause: -1})
			queues := map[*memQueue]*returningQueue{}
			c.wrap = func(q *memQueue) Queue {
				rq := &returningQueue{memQueue: q, manager: func(e []byte) string {
					tk, err := envelope.Open(e, c.manager.GetPublic())
					if err != nil {
						t.Errorf("a task given back does not open: %v", err)
						return ""
					}
					return tk.ID
				}}
				queues[q] = rq
				return rq
			}
			a := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
			b := c.addAt(ctx, can.Point{0.75, 0.5, 0.5})
			target := can.Point{0.75, 0.5, 0.5}
			var ids []string
			for i := range cmp.Or(tt.tasks, 3) {
				id := fmt.Sprintf("t%04d", i+1)
				if err := b.q.Enqueue(ctx, c.task(id, target), c.envelope(id, target), nil); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			a.q.mu.Lock()
			a.q.capacity = tt.heirCap
			a.q.mu.Unlock()
			if tt.refuse {
				a.n.mu.Lock()
				a.n.leaving = true
				a.n.mu.Unlock()
			}
			err := b.n.Leave(ctx)
			if tt.refuse != (err != nil) {
				t.Fatalf("Leave: %v", err)
			}
			held := a.q.ids()
			back := queues[b.q].returned
			if len(held) != tt.wantHeir || len(back) != tt.wantBack {
				t.Fatalf("heir holds %v and the manager got back %v; want %d and %d", held, back, tt.wantHeir, tt.wantBack)
			}
			all := slices.Concat(held, back)
			slices.Sort(all)
			if !slices.Equal(all, ids) {
				t.Fatalf("heir %v + given back %v is not every task once (%v)", held, back, ids)
			}
			if got := b.n.Stats().GivenBack; got != int64(tt.wantBack) {
				t.Fatalf("GivenBack = %d, want %d", got, tt.wantBack)
			}
		})
	}
}
