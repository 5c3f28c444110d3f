package channels

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// openShared opens two handles on one PostgreSQL database, as two
// managers sharing it do.
func openShared(t *testing.T) (*DB, *DB) {
	t.Helper()
	dsn := pgtest.Start(t).DSN
	var ds [2]*DB
	for i := range ds {
		d, err := OpenPostgres(context.Background(), dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		ds[i] = d
	}
	return ds[0], ds[1]
}

// TestSharedRoundsIssuedOnce: two managers racing to issue the next
// rounds of the same channels issue each round exactly once.
func TestSharedRoundsIssuedOnce(t *testing.T) {
	a, b := openShared(t)
	const channels, rounds = 12, 6
	var seeds []string
	for i := range channels {
		seeds = append(seeds, fmt.Sprintf("http://h%d.example/", i))
	}
	if _, err := a.AddSeeds(seeds, t0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	issued := map[string]int{} // channel/round → times issued
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, d := range []*DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds * 3 {
				all, err := d.All(0)
				if err != nil {
					errs <- err
					return
				}
				for _, c := range all {
					round := c.Round + 1
					if round > rounds {
						continue
					}
					var recs []Task
					for _, tk := range c.Tasks(round, PagePlan{}) {
						recs = append(recs, Task{ID: tk.ID, Channel: c.ID, Round: round, Issued: t0, Deadline: t0.Add(time.Hour)})
					}
					err := d.Issue(c.ID, round, recs, t0)
					if errors.Is(err, ErrIssued) {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					issued[fmt.Sprintf("%s/%d", c.ID, round)]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range channels {
		for r := 1; r <= rounds; r++ {
			if n := issued[fmt.Sprintf("h%d.example/%d", i, r)]; n != 1 {
				t.Errorf("round %d of h%d.example issued %d times", r, i, n)
			}
		}
	}
	all, _ := b.All(0)
	for _, c := range all {
		if c.Round != rounds || c.Submitted != rounds {
			t.Errorf("%s: round %d, submitted %d; want %d", c.ID, c.Round, c.Submitted, rounds)
		}
	}
}

// TestSharedOneLeasePerHost: two managers granting and sending the tasks
// of one host at the same moment, and crawlers claiming every copy, leave
// one crawler on the host.
func TestSharedOneLeasePerHost(t *testing.T) {
	a, b := openShared(t)
	var seeds []string
	for i := range 8 {
		seeds = append(seeds, fmt.Sprintf("http://c%d.example/", i))
	}
	if _, err := a.AddSeeds(seeds, t0); err != nil {
		t.Fatal(err)
	}
	all, err := a.All(0)
	if err != nil {
		t.Fatal(err)
	}
	// Channels whose tasks all crawl one host (as sub-directory
	// channels of a site do).
	var ids []string
	for _, c := range all {
		ids = append(ids, issueOn(t, a, c.ID, "one.example", 1, t0)[0].ID)
	}
	type sent struct {
		id    string
		epoch uint64
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		out     []sent
		claimed []string
	)
	for _, d := range []*DB{a, b} {
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, ok, err := d.Grant(id, t0, testLease)
				if err == nil && ok {
					err = d.MarkSending(id, true)
				}
				if err != nil && !errors.Is(err, ErrNotGrantable) {
					t.Error(err) // the other manager sent it first: fine
				}
				if ok {
					mu.Lock()
					out = append(out, sent{id, g.Epoch})
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	for i, s := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := []*DB{a, b}[i%2]
			_, err := d.Claim(s.id, s.epoch, fmt.Sprintf("crawler-%d", i), t0.Add(time.Second), testLease)
			if err == nil {
				mu.Lock()
				claimed = append(claimed, s.id)
				mu.Unlock()
			} else if !errors.Is(err, ErrLeaseOver) && !errors.Is(err, ErrLeaseHeld) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d tasks of one host: %d sent, %d claimed", len(ids), len(out), len(claimed))
	if len(out) == 0 || len(claimed) != 1 {
		t.Fatalf("%d crawlers claimed a lease on one host, want 1", len(claimed))
	}
}
