package channels

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/task"
)

func pushedURLs(c Channel) []string {
	var out []string
	for _, p := range c.Pushed.URLs {
		out = append(out, p.URL)
	}
	return out
}

func TestPush(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/", "http://b.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	if err := d.Update("b.example", func(c *Channel) error { c.Filters = []string{`^http://b\.example/news/`}; return nil }); err != nil {
		t.Fatal(err)
	}
	out, err := d.Push("a.example", []string{"http://a.example/x", "http://a.example/y", "http://a.example/x", "http://other.example/z"}, t0)
	if err != nil || out.Added != 3 || out.Ignored != 1 || !out.Due {
		t.Fatalf("Push = %+v, %v; want 3 added (one twice), the other host's ignored, due", out, err)
	}
	c, _ := d.Get("a.example")
	if !c.CrawlSoon || !slices.Equal(pushedURLs(c), []string{"http://a.example/x", "http://a.example/y"}) || c.Pushed.URLs[0].Seq != 3 {
		t.Fatalf("channel after Push: crawl soon %v, pushed %+v", c.CrawlSoon, c.Pushed)
	}

	out, err = d.Push("b.example", []string{"http://b.example/news/1", "http://b.example/sport/1"}, t0)
	if err != nil || out.Added != 1 || out.Ignored != 1 {
		t.Fatalf("Push outside the filters = %+v, %v; want one added, one ignored", out, err)
	}

	// A paused channel keeps them without being made due.
	if _, err := d.Pause("b.example", true); err != nil {
		t.Fatal(err)
	}
	if err := d.Update("b.example", func(c *Channel) error { c.CrawlSoon = false; return nil }); err != nil {
		t.Fatal(err)
	}
	out, err = d.Push("b.example", []string{"http://b.example/news/2"}, t0)
	if c, _ := d.Get("b.example"); err != nil || out.Added != 1 || out.Due || c.CrawlSoon || len(c.Pushed.URLs) != 2 {
		t.Fatalf("Push to a paused channel = %+v, %v; channel %+v", out, err, c)
	}

	// Bounded in number and in bytes.
	var many []string
	for i := range MaxPushed + 5 {
		many = append(many, fmt.Sprintf("http://a.example/p%d", i))
	}
	out, _ = d.Push("a.example", many, t0)
	if c, _ := d.Get("a.example"); len(c.Pushed.URLs) != MaxPushed || out.Added != MaxPushed-2 || out.Ignored != 7 {
		t.Fatalf("a channel holds %d pushed URLs (push %+v), want %d", len(c.Pushed.URLs), out, MaxPushed)
	}
	long := "http://b.example/news/" + strings.Repeat("x", 2000)
	var big []string
	for i := range 40 {
		big = append(big, fmt.Sprintf("%s%d", long, i))
	}
	out, _ = d.Push("b.example", big, t0)
	c, _ = d.Get("b.example")
	size := 0
	for _, p := range c.Pushed.URLs {
		size += len(p.URL)
	}
	if size > maxPushedBytes || size < maxPushedBytes-len(long)-2 || out.Ignored == 0 || out.Added+out.Ignored != len(big) {
		t.Fatalf("2 KB URLs: %+v; the channel holds %d bytes of URLs, want nearly 64 KiB", out, size)
	}

	if _, err := d.Push("nowhere.example", []string{"http://nowhere.example/"}, t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Push to an unknown channel: %v", err)
	}
	if _, err := d.Remove("a.example", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push("a.example", []string{"http://a.example/x"}, t0); !errors.Is(err, ErrRemoved) {
		t.Fatalf("Push to a removed channel: %v", err)
	}
}

func TestTasksCarryPushed(t *testing.T) {
	c := Channel{ID: "a.example", Seeds: []string{"http://a.example/"}, MaxDepth: 5,
		Pages: map[string]Page{
			"http://a.example/":       {Digest: 3, ETag: `"0"`, Crawled: t0},
			"http://a.example/news/1": {Digest: 1, ETag: `"1"`, Crawled: t0, Depth: 2},
			"http://a.example/news/2": {Digest: 2, ETag: `"2"`, Crawled: t0, Depth: 2},
		},
		Pushed: Pushes{Seq: 2, URLs: []Push{{URL: "http://a.example/news/1", Seq: 1}, {URL: "http://a.example/deep/page", Seq: 2}}}}
	bare := c
	bare.Pushed = Pushes{}
	if ts := bare.Tasks(1, PagePlan{Kind: PlanAll}); len(ts[0].Validators) != 3 {
		t.Fatalf("the fixture's task revisits %d pages, want 3", len(ts[0].Validators))
	}
	ts := c.Tasks(1, PagePlan{Kind: PlanAll})
	want := []task.Validator{
		{URL: "http://a.example/news/1", Depth: 2}, // known: at its depth, in full
		{URL: "http://a.example/deep/page"},        // new: as a seed
		{URL: "http://a.example/", ETag: `"0"`},
		{URL: "http://a.example/news/2", ETag: `"2"`, Depth: 2},
	}
	if !slices.Equal(ts[0].Validators, want) || !slices.Equal(ts[0].Seeds, c.Seeds) {
		t.Fatalf("validators %+v, seeds %v; want %+v and the channel's seeds", ts[0].Validators, ts[0].Seeds, want)
	}

	// A known page deeper than the crawl goes is fetched at its limit.
	c.MaxDepth = 1
	ts = c.Tasks(1, PagePlan{Kind: PlanAll})
	if v := ts[0].Validators[0]; v.URL != "http://a.example/news/1" || v.Depth != 1 {
		t.Fatalf("with a depth limit of 1 the pushed page goes as %+v", v)
	}
	c.MaxDepth = 5

	// A full list makes room for them.
	full := &task.Task{Seeds: []string{"http://a.example/"}, Validators: make([]task.Validator, task.MaxValidators)}
	for i := range full.Validators {
		full.Validators[i].URL = fmt.Sprintf("http://a.example/v%d", i)
	}
	c.addPushed([]*task.Task{full})
	if len(full.Validators) != task.MaxValidators || full.Validators[1].URL != "http://a.example/deep/page" {
		t.Fatalf("%d validators, second %s", len(full.Validators), full.Validators[1].URL)
	}

	// Pieces: each URL to the piece covering its directory, a seed of the
	// first piece for a directory none covers.
	c.Pieces = []pieces.Piece{{Dirs: []string{"/deep/"}}, {Dirs: []string{"/", "/news/"}}}
	c.Pushed.URLs = append(c.Pushed.URLs, Push{URL: "http://a.example/new-dir/x", Seq: 3})
	ts = c.Tasks(2, PagePlan{Kind: PlanAll})
	if len(ts) != 2 ||
		ts[0].Validators[0].URL != "http://a.example/deep/page" || ts[1].Validators[0].URL != "http://a.example/news/1" ||
		!slices.Equal(ts[0].Seeds, []string{"http://a.example/", "http://a.example/new-dir/x"}) ||
		!slices.Equal(ts[1].Seeds, []string{"http://a.example/"}) {
		t.Fatalf("pieces: validators %+v and %+v, seeds %v and %v", ts[0].Validators, ts[1].Validators, ts[0].Seeds, ts[1].Seeds)
	}
	for _, tk := range ts {
		if err := tk.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

// A pushed URL rides the next round and is forgotten when the round brings
// a result; one pushed meanwhile waits for the round after, which it makes
// due; a round that ends without a result keeps them, up to maxPushTries.
func TestPushedLifecycle(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push("a.example", []string{"http://a.example/changed"}, t0); err != nil {
		t.Fatal(err)
	}
	snap, _ := d.Get("a.example")
	recs := issue(t, d, "a.example", 1, t0)
	// Pushed after the round was built, before it was marked.
	if _, err := d.Push("a.example", []string{"http://a.example/later"}, t0); err != nil {
		t.Fatal(err)
	}
	if err := d.MarkPushes("a.example", 1, snap.Pushed.Seq); err != nil {
		t.Fatal(err)
	}
	c, _ := d.Get("a.example")
	if !c.CrawlSoon || len(c.Pushed.URLs) != 2 || c.Pushed.URLs[0].Round != 1 || c.Pushed.URLs[1].Round != 0 {
		t.Fatalf("after the round was issued: crawl soon %v, pushed %+v; want the later URL waiting and due", c.CrawlSoon, c.Pushed.URLs)
	}
	if _, err := d.Complete(recs[0].ID, "p", Feedback{}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c, _ = d.Get("a.example")
	if !slices.Equal(pushedURLs(c), []string{"http://a.example/later"}) {
		t.Fatalf("after the round's result: pushed %+v, want only the later URL", c.Pushed.URLs)
	}

	// Rounds that bring nothing keep it, maxPushTries of them.
	now := t0.Add(time.Hour)
	for round := 2; round < 2+maxPushTries; round++ {
		snap, _ = d.Get("a.example")
		issue(t, d, "a.example", round, now)
		if err := d.MarkPushes("a.example", round, snap.Pushed.Seq); err != nil {
			t.Fatal(err)
		}
		now = now.Add(2 * time.Hour)
		if lost, err := d.Expire(now, time.Minute); err != nil || len(lost) != 1 || !lost[0].RoundDone {
			t.Fatalf("Expire = %+v, %v", lost, err)
		}
		c, _ = d.Get("a.example")
		if left := round-1 < maxPushTries; left != (len(c.Pushed.URLs) == 1) {
			t.Fatalf("after %d lost rounds: pushed %+v", round-1, c.Pushed.URLs)
		}
		if len(c.Pushed.URLs) == 1 && (c.Pushed.URLs[0].Round != 0 || c.Pushed.URLs[0].Tries != round-1) {
			t.Fatalf("after %d lost rounds: pushed %+v, want waiting again", round-1, c.Pushed.URLs)
		}
	}
}
