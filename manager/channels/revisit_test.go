package channels

import (
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestSkippedPageKeepsValidators: a page the plan leaves out of a round
// is not counted missed by that round's result, even though the task's
// spec is dropped when it is sent; so when a later round revisits it, it
// goes with its ETag and Last-Modified (a conditional GET), and it is
// never forgotten. Before the list of revisited pages was kept past
// sending, each skipped round counted a miss: the page came back
// unconditional, and after three was dropped.
func TestSkippedPageKeepsValidators(t *testing.T) {
	for _, kind := range []string{PlanAdaptive, PlanFountain} {
		t.Run(kind, func(t *testing.T) {
			const home = "http://a.example/"
			pages := []string{"http://a.example/hot", "http://a.example/cold", "http://a.example/c2", "http://a.example/c3", "http://a.example/c4"}
			d := openDB(t, "", Options{Plan: PagePlan{Kind: kind}})
			if _, err := d.AddSeeds([]string{home}, t0); err != nil {
				t.Fatal(err)
			}
			parent := task.DigestString(home)
			digest := map[string]task.Digest{home: 1}
			for i, u := range pages {
				digest[u] = task.Digest(10 + i)
			}
			skipped := map[string]bool{}
			revisits := 0
			for round := 1; round <= 16; round++ {
				now := t0.Add(time.Duration(round) * time.Hour)
				tk := issueSpec(t, d, "a.example", round, now)[0]
				if err := d.MarkSent(tk.ID, "peer"); err != nil {
					t.Fatal(err)
				}
				fetched := []string{home}
				if round == 1 {
					fetched = append(fetched, pages...)
				} else {
					for _, v := range tk.Validators {
						if v.URL == home {
							continue
						}
						fetched = append(fetched, v.URL)
						if skipped[v.URL] {
							revisits++
							if v.ETag == "" || v.LastModified == "" {
								t.Fatalf("round %d: %s, left out earlier, is revisited without its validators: %+v", round, v.URL, v)
							}
							skipped[v.URL] = false
						}
					}
					for _, u := range pages {
						if !slices.Contains(fetched, u) {
							skipped[u] = true
						}
					}
				}
				digest[pages[0]]++ // the hot page changes every round
				var fb Feedback
				for _, u := range fetched {
					pr := PageResult{URL: u, Digest: digest[u], Known: round > 1, Depth: 1, Parent: parent,
						ETag: `"` + u + `"`, LastModified: "Sun, 22 Nov 2026 12:00:00 GMT"}
					if u == home {
						pr.Depth, pr.Parent = 0, 0
					}
					pr.Changed = pr.Known && u == pages[0]
					fb.Pages = append(fb.Pages, pr)
				}
				if _, err := d.Complete(tk.ID, "peer", fb, now.Add(time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
			if revisits == 0 {
				t.Fatal("no page was left out and then revisited; the test shows nothing")
			}
			c, err := d.Get("a.example")
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range pages {
				if p, ok := c.Pages[u]; !ok || p.Misses != 0 {
					t.Fatalf("%s: known %v with %d misses; want kept with none", u, ok, p.Misses)
				}
			}
			t.Logf("%d revisits of pages left out earlier, all conditional", revisits)
		})
	}
}
