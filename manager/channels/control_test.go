package channels

import (
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestStayOnHost(t *testing.T) {
	links := []string{"http://b.example/", "http://c.example/"}
	yes, no := true, false
	tests := []struct {
		name       string
		stay       bool
		otherHosts *bool
		want       int
	}{
		{"network default follows", false, nil, 2},
		{"solo default stays", true, nil, 0},
		{"channel chose to follow", true, &yes, 2},
		{"channel chose to stay", false, &no, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDB(t, "", Options{StayOnHost: tt.stay})
			if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
				t.Fatal(err)
			}
			if tt.otherHosts != nil {
				if _, err := d.Set("a.example", Settings{OtherHosts: tt.otherHosts}); err != nil {
					t.Fatal(err)
				}
			}
			recs := issue(t, d, "a.example", 1, t0)
			out, err := d.Complete(recs[0].ID, "p", Feedback{InterSite: links}, t0.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := d.Count(); len(out.Created) != tt.want || n != 1+tt.want {
				t.Fatalf("created %d channels (%d in all), want %d", len(out.Created), n, tt.want)
			}
		})
	}
}

func TestLastCrawlRecorded(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	recs := issue(t, d, "a.example", 1, t0)
	fb := Feedback{Stats: task.Stats{Errors: map[string]int{"forbidden_address": 1}}, Stopped: "forbidden address"}
	out, err := d.Complete(recs[0].ID, "p", fb, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if l := out.Channel.Last; l == nil || l.Stopped != "forbidden address" || l.Errors["forbidden_address"] != 1 || !l.At.Equal(t0.Add(time.Minute)) {
		t.Fatalf("last crawl after a result: %+v", l)
	}
	recs = issue(t, d, "a.example", 2, t0.Add(time.Hour))
	if _, ok, err := d.Cancel(recs[0].ID, 0, "p", "expired", t0.Add(2*time.Hour)); err != nil || !ok {
		t.Fatalf("Cancel = %v, %v", ok, err)
	}
	c, _ := d.Get("a.example")
	if c.Last == nil || c.Last.Lost != "expired" || c.Last.Pages != 0 || c.Last.Errors != nil {
		t.Fatalf("last crawl after a cancel: %+v", c.Last)
	}
	recs = issue(t, d, "a.example", 3, t0.Add(3*time.Hour))
	if _, err := d.Expire(t0.Add(9*time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	if c, _ = d.Get("a.example"); c.Last == nil || c.Last.Lost != "lost" {
		t.Fatalf("last crawl after a lost task %s: %+v", recs[0].ID, c.Last)
	}
}

func TestChannelControls(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	c, err := d.Pause("a.example", true)
	if err != nil || !c.Paused {
		t.Fatalf("Pause = %+v, %v", c, err)
	}
	if c, err = d.CrawlNow("a.example"); err != nil || !c.CrawlSoon || !c.Paused {
		t.Fatalf("CrawlNow on a paused channel = %+v, %v", c, err)
	}
	recs := issue(t, d, "a.example", 1, t0)
	if c, _ = d.Get("a.example"); c.CrawlSoon {
		t.Fatal("a new round left the channel marked to crawl soon")
	}
	if _, err := d.CrawlNow("a.example"); err == nil {
		t.Fatal("CrawlNow during a round was taken")
	}

	depth, pages := 2, 50
	if c, err = d.Set("a.example", Settings{MaxDepth: &depth, MaxPages: &pages}); err != nil || c.MaxDepth != 2 || c.MaxPages != 50 {
		t.Fatalf("Set = %+v, %v", c, err)
	}
	bad := MaxSettableDepth + 1
	if _, err := d.Set("a.example", Settings{MaxDepth: &bad, MaxPages: &pages}); err == nil {
		t.Fatal("a depth out of range was taken")
	}
	if tk := c.Tasks(2, PagePlan{})[0]; tk.MaxDepth != 2 || tk.MaxPages != 50 {
		t.Fatalf("the next round's task has depth %d, pages %d", tk.MaxDepth, tk.MaxPages)
	}

	if c, err = d.Remove("a.example", t0.Add(time.Minute)); err != nil || !c.Removed() || c.Paused {
		t.Fatalf("Remove = %+v, %v", c, err)
	}
	for name, op := range map[string]func() error{
		"pause":     func() error { _, err := d.Pause("a.example", false); return err },
		"crawl now": func() error { _, err := d.CrawlNow("a.example"); return err },
		"remove":    func() error { _, err := d.Remove("a.example", t0); return err },
	} {
		if err := op(); !errors.Is(err, ErrRemoved) {
			t.Errorf("%s on a removed channel = %v, want ErrRemoved", name, err)
		}
	}
	if _, err := d.Pause("nope.example", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Pause of an unknown channel = %v", err)
	}
	// The round under way still brings its result; links it found to
	// other hosts create nothing, and do not bring the channel back.
	out, err := d.Complete(recs[0].ID, "p", Feedback{InterSite: []string{"http://b.example/"}}, t0.Add(2*time.Minute))
	if err != nil || !out.First || len(out.Created) != 0 || !out.Channel.Removed() {
		t.Fatalf("a removed channel's result: %+v, %v", out, err)
	}
	// A seed on its host brings it back.
	if _, err := d.AddSeeds([]string{"http://a.example/again"}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if c, _ = d.Get("a.example"); c.Removed() || len(c.Seeds) != 2 || c.Index != 0 {
		t.Fatalf("re-added channel: %+v", c)
	}
}
