package manager

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/report"
)

// TestCancellationReport: a crawler's report that it cancelled a task
// ends the task as cancelled with its reason, once; a report whose
// envelope another key signed, or that was altered, is refused and
// changes nothing.
func TestCancellationReport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	m := newManager(t, t.TempDir(), clk)
	_, issued, env, ph := firstTask(ctx, t, m)
	id := issued.ID

	other, _, _ := crypto.GenerateEd25519Key(nil)
	forged, err := envelope.Seal(issued, other)
	if err != nil {
		t.Fatal(err)
	}
	altered := append([]byte(nil), env...)
	altered[len(altered)/2] ^= 0x20
	for name, env := range map[string][]byte{"forged": forged, "altered": altered} {
		if _, err := report.Send(ctx, ph, m.ID(), report.Report{Task: env, Reason: report.Expired}); err == nil {
			t.Errorf("%s envelope: report accepted", name)
		}
	}
	if _, err := report.Send(ctx, ph, m.ID(), report.Report{Task: env, Reason: "bored"}); err == nil {
		t.Error("a report with an unknown reason was accepted")
	}
	if tk, _ := m.db.Task(id); tk.State != channels.TaskOpen {
		t.Fatalf("task is %s after refused reports, want open", tk.State)
	}

	a, err := report.Send(ctx, ph, m.ID(), report.Report{Task: env, Reason: report.Expired})
	if err != nil || !a.Counted {
		t.Fatalf("report answered %+v, %v; want counted", a, err)
	}
	tk, _ := m.db.Task(id)
	c, _ := m.db.Get(issued.Channel)
	if tk.State != channels.TaskCancelled || tk.Reason != report.Expired || c.Pending != 0 || c.Failures != 1 {
		t.Fatalf("after the report: task %s (%q), channel pending %d failures %d", tk.State, tk.Reason, c.Pending, c.Failures)
	}
	if a, err := report.Send(ctx, ph, m.ID(), report.Report{Task: env, Reason: report.Expired}); err != nil || a.Counted {
		t.Fatalf("second report answered %+v, %v; want acknowledged, not counted", a, err)
	}
}

// TestHandedBackReissuedAtOnce: a task a leaving crawler hands back (no
// neighbour could queue it) is no failure of its channel, and the very
// next tick issues the host again, without waiting for its interval.
func TestHandedBackReissuedAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	q, tk, env, ph := firstTask(ctx, t, m)
	a, err := report.Send(ctx, ph, m.ID(), report.Report{Task: env, Reason: report.HandedBack})
	if err != nil || !a.Counted {
		t.Fatalf("report answered %+v, %v; want counted", a, err)
	}
	c, _ := m.db.Get(tk.Channel)
	if c.Failures != 0 || c.Pending != 0 {
		t.Fatalf("after the hand-back: channel failures %d pending %d; want 0 and 0", c.Failures, c.Pending)
	}
	// The host's politeness wait after the crawler that handed the task
	// back, and no more.
	clk.add(time.Minute)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	again, _ := q.take()
	if len(again) != 1 || again[0].Channel != tk.Channel || again[0].ID == tk.ID {
		t.Fatalf("the next tick issued %d tasks; want the handed-back host again under a new task", len(again))
	}
}
