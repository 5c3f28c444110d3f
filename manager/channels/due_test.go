package channels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// wantDue is the rule Due follows, applied to every channel.
func wantDue(all []Channel, bounds []time.Duration, now time.Time) []string {
	var out []string
	for _, c := range all {
		if c.Removed() || c.Paused && !c.CrawlSoon {
			continue
		}
		var b time.Duration
		if c.Group < len(bounds) {
			b = bounds[c.Group]
		}
		if c.CrawlSoon || c.LastSubmit.IsZero() || !c.LastSubmit.After(now.Add(-b)) {
			out = append(out, c.ID)
		}
	}
	slices.Sort(out)
	return out
}

func dueIDs(t *testing.T, d *DB, bounds []time.Duration, now time.Time) []string {
	t.Helper()
	chs, err := d.Due(bounds, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range chs {
		out = append(out, c.ID)
	}
	slices.Sort(out)
	return out
}

// TestDueIndex: whatever happens to the channels (rounds issued and
// completed, pauses, crawl-now, removal, new groups), Due lists exactly
// the channels the rule names, and a database without the index gets it
// at its next opening.
func TestDueIndex(t *testing.T) {
	path := t.TempDir() + "/channels.db"
	d := openDB(t, path, Options{})
	var seeds []string
	for i := range 40 {
		seeds = append(seeds, fmt.Sprintf("http://h%02d.example/", i))
	}
	if _, err := d.AddSeeds(seeds, t0); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	now := t0
	check := func(step string) {
		t.Helper()
		all, err := d.All(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, bounds := range [][]time.Duration{nil, {time.Minute, time.Hour, 3 * time.Hour, 5 * time.Hour, 8 * time.Hour}, {0, 2 * time.Hour}} {
			for _, at := range []time.Time{now, now.Add(90 * time.Minute), now.Add(6 * time.Hour)} {
				if got, want := dueIDs(t, d, bounds, at), wantDue(all, bounds, at); !slices.Equal(got, want) {
					t.Fatalf("%s: Due(%v, +%v) = %v\nwant %v", step, bounds, at.Sub(now), got, want)
				}
			}
		}
	}
	check("new channels")
	for step := range 200 {
		now = now.Add(time.Duration(rng.IntN(40)) * time.Minute)
		id := fmt.Sprintf("h%02d.example", rng.IntN(len(seeds)))
		c, err := d.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		var what string
		switch rng.IntN(6) {
		case 0, 1:
			what = "issue"
			if c.Removed() || c.Pending > 0 {
				continue
			}
			recs := issue(t, d, id, c.Round+1, now)
			if rng.IntN(3) > 0 {
				for _, r := range recs {
					if _, err := d.Complete(r.ID, "p", Feedback{}, now.Add(time.Minute)); err != nil {
						t.Fatal(err)
					}
				}
			}
		case 2:
			what = "pause"
			d.Pause(id, rng.IntN(2) == 0)
		case 3:
			what = "crawl now"
			d.CrawlNow(id)
		case 4:
			what = "groups"
			groups := make([]int, len(seeds))
			for i := range groups {
				groups[i] = rng.IntN(5)
			}
			if err := d.SetGroups(groups); err != nil {
				t.Fatal(err)
			}
		case 5:
			what = "remove"
			if rng.IntN(4) == 0 {
				d.Remove(id, now)
			}
		}
		check(fmt.Sprintf("step %d (%s %s)", step, what, id))
	}
	// A database from before the index: no index, no mark.
	err := d.db.Update(func(tx kv.Tx) error {
		var keys [][]byte
		tx.Bucket(bucketDue).ForEach(func(k, _ []byte) error { keys = append(keys, slices.Clone(k)); return nil })
		for _, k := range keys {
			tx.Bucket(bucketDue).Delete(k)
		}
		return tx.Bucket(bucketMeta).Delete([]byte(metaDueIndex))
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d = openDB(t, path, Options{})
	check("reopened without the index")
}
