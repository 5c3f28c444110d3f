package channels

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// issueSpec issues the channel's next round with its tasks' specs stored,
// as the manager does, and returns them.
func issueSpec(t *testing.T, d *DB, id string, round int, now time.Time) []*task.Task {
	t.Helper()
	c, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	ts := c.Tasks(round, d.Plan())
	var recs []Task
	for _, tk := range ts {
		tk.Issued = now
		spec, err := tk.Encode()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, Task{ID: tk.ID, Channel: id, Round: round, Issued: now, Deadline: now.Add(time.Hour), Spec: spec})
	}
	if err := d.Issue(id, round, recs, now); err != nil {
		t.Fatal(err)
	}
	return ts
}

func listedURLs(tk *task.Task) []string {
	var out []string
	for _, v := range tk.Validators {
		out = append(out, v.URL)
	}
	slices.Sort(out)
	return out
}

// TestAdaptivePlan runs a three-page site through rounds under paper
// 003's plan: a page that changes at every crawl is revisited every
// round, one that never changes less and less often, and is then in the
// task's Skip filter; the plan's leaving a page alone does not count as
// the page missing. The home page links to one changing page and three
// that never change: 25 % changed, below the selective rule's threshold.
func TestAdaptivePlan(t *testing.T) {
	const home, hot, cold = "http://a.example/", "http://a.example/hot", "http://a.example/cold"
	others := []string{"http://a.example/c2", "http://a.example/c3"}
	d := openDB(t, "", Options{Plan: PagePlan{Kind: PlanAdaptive}})
	if _, err := d.AddSeeds([]string{home}, t0); err != nil {
		t.Fatal(err)
	}
	parent := task.DigestString(home)
	digest := map[string]task.Digest{home: 1, hot: 100, cold: 3, others[0]: 4, others[1]: 5}
	coldRounds := 0
	for round := 1; round <= 24; round++ {
		now := t0.Add(time.Duration(round) * time.Hour)
		ts := issueSpec(t, d, "a.example", round, now)
		tk := ts[0]
		fetched := []string{home} // the seed, always
		listed := listedURLs(tk)
		if round == 1 {
			fetched = append(fetched, hot, cold, others[0], others[1]) // found through links
		} else {
			if !slices.Contains(listed, hot) {
				t.Fatalf("round %d: the page that always changes is not revisited: %v", round, listed)
			}
			for _, u := range []string{hot, cold, others[0], others[1]} {
				if slices.Contains(listed, u) {
					fetched = append(fetched, u)
				} else if tk.Skip == nil || !tk.Skip.Has(task.DigestString(u)) {
					t.Fatalf("round %d: %s neither revisited nor skipped", round, u)
				}
			}
		}
		if slices.Contains(fetched, cold) && round > 1 {
			coldRounds++
		}
		digest[hot]++
		var fb Feedback
		for _, u := range fetched {
			pr := PageResult{URL: u, Digest: digest[u], Known: round > 1, Depth: 1, Parent: parent}
			if u == home {
				pr.Depth, pr.Parent = 0, 0
			}
			pr.Changed = pr.Known && u == hot
			fb.Pages = append(fb.Pages, pr)
		}
		if _, err := d.Complete(tk.ID, "", fb, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := d.Get("a.example")
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Pages[hot]; p.FrMax != 1 {
		t.Fatalf("page changing every round has fr_max %d", p.FrMax)
	}
	if p := c.Pages[cold]; p.FrMax < 3 || p.Misses != 0 {
		t.Fatalf("page never changing has fr_max %d and %d misses; want ≥ 3 and none", p.FrMax, p.Misses)
	}
	if coldRounds >= 23/2 {
		t.Fatalf("the unchanging page was revisited in %d of 23 rounds", coldRounds)
	}
	t.Logf("unchanging page revisited in %d of 23 rounds, fr_max now %d", coldRounds, c.Pages[cold].FrMax)
}

// TestSelectiveRule: an unchanged page whose children changed in a share
// at least its threshold has its children revisited next round, due or
// not; below the threshold it does not.
func TestSelectiveRule(t *testing.T) {
	const home = "http://a.example/"
	c := Channel{ID: "a.example", Seeds: []string{home}, Pages: map[string]Page{}}
	parent := task.DigestString(home)
	kids := []string{home + "1", home + "2", home + "3", home + "4", home + "5"}
	for _, u := range kids {
		// Not due for a while: fetched in round 10 with fr_max 8.
		c.Pages[u] = Page{Digest: 1, Parent: parent, Depth: 1, Round: 10, FrMax: 8, Records: 4}
	}
	c.Pages[home] = Page{Digest: 1, Round: 10, FrMax: 1, Records: 4}
	// Round 11: the home page unchanged, and 3 of its 5 children found
	// changed at their latest crawl (60 % ≥ the starting 40 %).
	for _, u := range kids[:3] {
		p := c.Pages[u]
		p.History = 1
		c.Pages[u] = p
	}
	c.apply(Feedback{Pages: []PageResult{{URL: home, Digest: 1, Known: true}}}, t0, 11, taskID(c.ID, 11, 0), nil, DefaultLimit)
	if !c.Pages[home].Follow {
		t.Fatal("60 % of the children changed: the home page should be followed")
	}
	tk := c.Tasks(12, PagePlan{Kind: PlanAdaptive})[0]
	if got := listedURLs(tk); len(got) != 6 {
		t.Fatalf("round 12 revisits %v, want the home page and its 5 children", got)
	}
	// The threshold moved towards 60 %: 50 %. One child in five changed
	// (20 %) is below it.
	for _, u := range kids[1:] {
		p := c.Pages[u]
		p.History = 0
		c.Pages[u] = p
	}
	c.apply(Feedback{Pages: []PageResult{{URL: home, Digest: 1, Known: true}}}, t0.Add(time.Hour), 12, taskID(c.ID, 12, 0), nil, DefaultLimit)
	if c.Pages[home].Follow {
		t.Fatal("20 % of the children changed: the home page should not be followed")
	}
	if got := listedURLs(c.Tasks(13, PagePlan{Kind: PlanAdaptive})[0]); len(got) != 1 {
		t.Fatalf("round 13 revisits %v, want only the home page", got)
	}
}

// TestFountainPlanSpendsBudget: the planner revisits at most its budget,
// fast-changing pages before pages that never change.
func TestFountainPlanSpendsBudget(t *testing.T) {
	c := Channel{ID: "a.example", Seeds: []string{"http://a.example/"}, Pages: map[string]Page{}}
	for i := range 100 {
		p := Page{Digest: 1, Round: 9, FrMax: 1, Records: 20}
		if i < 30 {
			p.History = 1<<20 - 1 // changed at every crawl
		}
		c.Pages["http://a.example/p"+string(rune('A'+i/26))+string(rune('a'+i%26))] = p
	}
	tk := c.Tasks(10, PagePlan{Kind: PlanFountain, Budget: 40})[0]
	got := listedURLs(tk)
	if len(got) == 0 || len(got) > 40 {
		t.Fatalf("revisits %d pages on a budget of 40", len(got))
	}
	fast := 0
	for _, u := range got {
		if c.Pages[u].History != 0 {
			fast++
		}
	}
	if fast < 25 {
		t.Fatalf("revisits %d of the 30 fast-changing pages among %d", fast, len(got))
	}
	if tk.Skip == nil {
		t.Fatal("pages left alone are not in the Skip filter")
	}
}

// TestChangeRateFromCrawls: the estimate follows the crawls' changes and
// their spacing, never reaches zero for a page seen unchanged (else the
// planner would never look at it again), and fades old crawls.
func TestChangeRateFromCrawls(t *testing.T) {
	crawl := func(changes, of, gap int) Page {
		var p Page
		for i := range of {
			p.observe(i < changes, gap)
		}
		return p
	}
	quiet, daily, hourly := crawl(0, 20, 24), crawl(10, 20, 24), crawl(20, 20, 1)
	if r := quiet.changeRate(); r <= 0 || r > 0.5/float64(20*24) {
		t.Fatalf("never seen to change in 480 rounds: rate %g per round, want in (0, %g]", r, 0.5/480)
	}
	if !(quiet.changeRate() < daily.changeRate() && daily.changeRate() < hourly.changeRate()) {
		t.Fatalf("rates quiet %g, daily %g, hourly %g: want increasing", quiet.changeRate(), daily.changeRate(), hourly.changeRate())
	}
	// Half the crawls a day apart found a change: about ln 2 a day, more
	// than the naive 10 changes in 480 rounds.
	if r := daily.changeRate(); r < 10.0/480 || r > 2*math.Ln2/24 {
		t.Fatalf("changed in 10 of 20 daily crawls: rate %g per round", r)
	}
	if p := crawl(100, 200, 1); p.Seen >= seenWindow || p.Span != p.Seen || p.Changes > p.Seen {
		t.Fatalf("after 200 crawls the record is %d crawls, %d changes over %d rounds", p.Seen, p.Changes, p.Span)
	}
	var fresh Page
	if r := fresh.changeRate(); r != math.Ln2 {
		t.Fatalf("a page never recrawled: rate %g, want the prior ln 2", r)
	}
}

// TestFountainPlanRotatesQuietPages: pages seen unchanged still take turns
// in the planner's spare budget, the longest unvisited first, instead of
// the same few being revisited every round.
func TestFountainPlanRotatesQuietPages(t *testing.T) {
	c := Channel{ID: "a.example", Seeds: []string{"http://a.example/"}, Pages: map[string]Page{}}
	for i := range 60 {
		p := Page{Digest: 1, Round: 1 + i%6}
		for range 5 {
			p.observe(false, 1)
		}
		c.Pages[fmt.Sprintf("http://a.example/p%02d", i)] = p
	}
	seen := map[string]bool{}
	for round := 10; round < 16; round++ {
		tk := c.Tasks(round, PagePlan{Kind: PlanFountain, Budget: 10})[0]
		for _, u := range listedURLs(tk) {
			if p, ok := c.Pages[u]; ok && u != c.Seeds[0] {
				if p.Round != slices.Min(roundsOf(c)) {
					t.Fatalf("round %d revisits %s last crawled in round %d, while pages wait since round %d", round, u, p.Round, slices.Min(roundsOf(c)))
				}
				seen[u] = true
				p.Round = round
				c.Pages[u] = p
			}
		}
	}
	if len(seen) != 60 {
		t.Fatalf("6 rounds of 10 revisited %d of 60 quiet pages", len(seen))
	}
}

func roundsOf(c Channel) []int {
	var out []int
	for _, p := range c.Pages {
		out = append(out, p.Round)
	}
	return out
}
