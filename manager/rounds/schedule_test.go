package rounds

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels/channelstest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testOptions(issued *int) Options {
	return Options{Strategy: StrategyFixed, PieceAbove: 5000, Pieces: 3, Delay: time.Second, Slack: 10 * time.Minute,
		Issued: func(n int) { *issued += n }}
}

func all(string) bool { return true }

// TestScheduleStartsDueRounds: a channel is known to the schedule from
// the Sync after it was added, gets one round when due and no second
// while that round is open; its next crawl is one interval after.
func TestScheduleStartsDueRounds(t *testing.T) {
	d := channelstest.Open(t)
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	var issued int
	s, err := New(d, testOptions(&issued), t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddSeeds([]string{"http://b.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	b, err := d.Get("b.example")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := s.NextCrawl(b); ok {
		t.Fatal("a channel added since is known before Sync")
	}
	if err := s.Sync(t0); err != nil {
		t.Fatal(err)
	}
	if err := s.StartRounds(t0, all); err != nil {
		t.Fatal(err)
	}
	if err := s.StartRounds(t0.Add(time.Minute), all); err != nil {
		t.Fatal(err)
	}
	open, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	if issued != 2 || len(open) != 2 {
		t.Fatalf("issued %d tasks, %d open; want one round for each of the 2 channels", issued, len(open))
	}
	b, err = d.Get("b.example")
	if err != nil {
		t.Fatal(err)
	}
	next, iv, ok := s.NextCrawl(b)
	if !ok || iv <= 0 || !next.Equal(t0.Add(iv)) {
		t.Fatalf("NextCrawl = %v, %v, %v; want one interval after the round at %v", next, iv, ok, t0)
	}
}

// TestScheduleRefusesAnUnknownStrategy: a misspelt strategy is an error
// at New, not a schedule that never starts a round.
func TestScheduleRefusesAnUnknownStrategy(t *testing.T) {
	var issued int
	o := testOptions(&issued)
	o.Strategy = "fastest"
	if _, err := New(channelstest.Open(t), o, t0); err == nil {
		t.Fatal("New accepted strategy \"fastest\"")
	}
}
