package manager

import (
	"context"
	"testing"
	"time"
)

func TestNextCrawl(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	m := newManager(t, t.TempDir(), clk)
	if _, err := m.AddSeeds([]string{"http://a.example/"}); err != nil {
		t.Fatal(err)
	}
	c, err := m.Channels().Get("a.example")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := m.NextCrawl(c); ok {
		t.Fatal("NextCrawl known before the schedule saw the channel")
	}
	// A tick adds the channel to the strategy and submits its first round
	// (no overlay peer takes it; the round is issued all the same).
	clk.add(time.Minute)
	m.Tick(context.Background())
	if c, err = m.Channels().Get("a.example"); err != nil {
		t.Fatal(err)
	}
	next, iv, ok := m.NextCrawl(c)
	if !ok || iv <= 0 || c.LastSubmit.IsZero() || !next.Equal(c.LastSubmit.Add(iv)) {
		t.Fatalf("NextCrawl = %v, %v, %v after a round submitted at %v", next, iv, ok, c.LastSubmit)
	}
	// A channel never submitted is due from when it was added.
	c.LastSubmit = time.Time{}
	if next, _, _ := m.NextCrawl(c); !next.Equal(c.Added) {
		t.Errorf("NextCrawl of a channel never submitted = %v, want %v", next, c.Added)
	}
}
