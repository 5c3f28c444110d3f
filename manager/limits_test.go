package manager

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// TestClaimsKeepToTheIPCap: over the lease protocol, with the default
// caps, crawlers that report one address for three shops get two leases
// there; the third claim is held (and the IP wait holds a claim that
// comes right after another).
func TestClaimsKeepToTheIPCap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	if _, err := m.AddSeeds([]string{"http://shop1.example/", "http://shop2.example/", "http://shop3.example/"}); err != nil {
		t.Fatal(err)
	}
	q, ph := onePeerOverlay(ctx, t, m)
	m.members.Answer(ph.ID(), entry.Request{Op: entry.OpRenew})
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q.take()
	if len(tasks) != 3 {
		t.Fatalf("overlay peer got %d tasks, want 3 (the address is not known yet)", len(tasks))
	}
	shared := []string{"203.0.113.9"}
	claim := func(i int) error {
		_, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[i], Proof: q.proof(tasks[i].ID), TaskID: tasks[i].ID, Epoch: tasks[i].Lease.Epoch, Addrs: shared})
		return err
	}
	if err := claim(0); err != nil {
		t.Fatal(err)
	}
	if err := claim(1); !errors.Is(err, lease.ErrHeld) {
		t.Fatalf("claim at once after another on the address = %v, want held (the IP wait)", err)
	}
	clk.add(2 * time.Second) // past the IP wait, the default --delay of 1 s
	if err := claim(1); err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Second) // past the IP wait, the default --delay of 1 s
	if err := claim(2); !errors.Is(err, lease.ErrHeld) {
		t.Fatalf("third claim on one address = %v, want held", err)
	}
}
