package channels

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestStrikeRest(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		u    float64
		want time.Duration
	}{
		{"first", 1, 0, time.Minute},
		{"second doubles", 2, 0, 2 * time.Minute},
		{"fifth", 5, 0, 16 * time.Minute},
		{"capped at a day", 30, 0, 24 * time.Hour},
		{"jitter adds up to a fifth", 1, 0.5, 66 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strikeRest(c.n, c.u); got != c.want {
				t.Fatalf("strikeRest(%d, %v) = %v, want %v", c.n, c.u, got, c.want)
			}
		})
	}
}

// TestStrikeRestsTheHost: a result that stopped on a 429 without
// Retry-After rests its host for the next crawler, whoever it is, at
// least a minute; a second strike in a row doubles it; thirty quiet
// minutes forgive the strikes.
func TestStrikeRestsTheHost(t *testing.T) {
	d := openDB(t, "", Options{})
	tk := tasksOn(t, d, "busy.example")[0]
	c, _ := d.Get(tk.Channel)
	now := t0
	round := 1
	// crawl grants, claims and ends the round's task with fb at the
	// time given, and issues the next round.
	crawl := func(fb Feedback) {
		t.Helper()
		if !grantUnder(t, d, tk.ID, now, testLease) {
			t.Fatalf("round %d not granted at %v", round, now.Sub(t0))
		}
		if _, err := d.Claim(tk.ID, uint64(round), "p", now, testLease); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Complete(tk.ID, "p", fb, now); err != nil {
			t.Fatal(err)
		}
		round++
		tk = issueOn(t, d, c.ID, "busy.example", round, now)[0]
	}
	// grantAfter reports whether the next round is granted d after now,
	// leaving it ungranted otherwise.
	grantAfter := func(after time.Duration) bool {
		_, ok, err := d.Grant(tk.ID, now.Add(after), testLease)
		if err != nil {
			t.Fatal(err)
		}
		if ok { // undo: let it lapse unsent by granting nothing further
			if err := d.MarkSending(tk.ID, false); err != nil {
				t.Fatal(err)
			}
		}
		return ok
	}
	crawl(Feedback{Strike: task.StrikeSlowDown})
	if grantAfter(59 * time.Second) {
		t.Fatal("host granted 59 s after a 429 without Retry-After")
	}
	now = now.Add(73 * time.Second) // a minute and the most jitter
	crawl(Feedback{Strike: task.StrikeSlowDown})
	if grantAfter(119 * time.Second) {
		t.Fatal("host granted 119 s after a second strike in a row")
	}
	now = now.Add(31 * time.Minute)
	crawl(Feedback{}) // quiet: forgiven
	now = now.Add(2 * time.Second)
	crawl(Feedback{Strike: task.StrikeErrors})
	if grantAfter(59 * time.Second) {
		t.Fatal("host granted 59 s after a strike")
	}
	if !grantAfter(73 * time.Second) {
		t.Fatal("a strike after thirty quiet minutes rested the host more than a first one")
	}
}
