package manager

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// TestRestartHoldsFirst: a manager restarted over an overlay that has had
// members names no first peer until members had time to renew, so a
// volunteer asking right after the restart does not start a second
// overlay; a manager that never saw a member names one at once.
func TestRestartHoldsFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	dir := t.TempDir()
	newPeer := func() *host.Host {
		h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ask := func(m *Manager, h *host.Host, member bool) entry.Answer {
		t.Helper()
		if err := h.Connect(ctx, m.Host().AddrInfo()); err != nil {
			t.Fatal(err)
		}
		a, err := entry.Ask(ctx, h, m.ID(), entry.Request{Member: member})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	m := newManager(t, dir, clk)
	a := newPeer()
	if got := ask(m, a, false); !got.First {
		t.Fatalf("first asker of a new network got %+v, want First", got)
	}
	ask(m, a, true)
	m.Close()

	m = newManager(t, dir, clk)
	b := newPeer()
	if got := ask(m, b, false); got.First {
		t.Fatal("a restarted manager named a first peer before members could renew")
	}
	ask(m, a, true) // the running overlay's member renews
	if got := ask(m, b, false); len(got.Entries) != 1 || got.Entries[0].ID != a.ID().String() {
		t.Fatalf("asker after the renewal got %+v, want the member %s", got, a.ID())
	}
	m.Close()

	// Nobody renews after this restart: once the hold is over, the overlay
	// is started afresh.
	m = newManager(t, dir, clk)
	c := newPeer()
	if got := ask(m, c, false); got.First {
		t.Fatal("a restarted manager named a first peer during its hold")
	}
	clk.add(restartHold)
	if got := ask(m, c, false); !got.First {
		t.Fatalf("asker after the hold got %+v, want First", got)
	}
}
