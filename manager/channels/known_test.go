package channels

import (
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/task"
)

// bigChannel returns a channel of n known pages spread over 20 first-level
// directories, every page with both validators, crawled at t0.
func bigChannel(n int) *Channel {
	c := &Channel{ID: "big.example", Seeds: []string{"https://big.example/"}, MaxDepth: 10, Pages: make(map[string]Page, n)}
	for i := range n {
		u := fmt.Sprintf("https://big.example/section-%02d/article-%07d.html", i%20, i)
		c.Pages[u] = Page{Digest: task.DigestString(u), ETag: fmt.Sprintf(`"%016x"`, i), LastModified: "Sun, 22 Nov 2026 12:00:00 GMT", Crawled: t0}
	}
	return c
}

// sealAll signs every task as the manager does and returns the largest
// encoding.
func sealAll(t testing.TB, ts []*task.Task) int {
	t.Helper()
	key, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, tk := range ts {
		tk.Issued = t0
		b, err := tk.Encode()
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, len(b))
		if _, err := envelope.Seal(tk, key); err != nil {
			t.Fatalf("seal task %s of %d bytes: %v", tk.ID, len(b), err)
		}
	}
	return largest
}

func TestLargeChannelTaskSmall(t *testing.T) {
	c := bigChannel(100_000)
	ts := c.Tasks(1, PagePlan{})
	size := sealAll(t, ts)
	t.Logf("100,000 known pages: task of %d bytes", size)
	if len(ts) != 1 || size >= task.MaxEncodedSize/2 {
		t.Fatalf("%d tasks, largest %d bytes; want one under %d", len(ts), size, task.MaxEncodedSize/2)
	}
	tk := ts[0]
	if tk.KnownFilter == nil || tk.KnownPages != nil || len(tk.Validators) == 0 || len(tk.Validators) > task.MaxValidators {
		t.Fatalf("filter %v, %d listed, %d validators", tk.KnownFilter != nil, len(tk.KnownPages), len(tk.Validators))
	}
	for u, p := range c.Pages {
		if !tk.KnownFilter.Has(p.Digest) {
			t.Fatalf("filter misses the digest of %s", u)
		}
	}
}

// TestLargeHostStillTasked: a host whose pages outgrow the largest filter
// still gets a signed task, the filter holding the most recently crawled
// pages.
func TestLargeHostStillTasked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a channel of 300,000 pages")
	}
	c := bigChannel(300_000)
	recent := "https://big.example/section-00/article-0000000.html"
	p := c.Pages[recent]
	p.Crawled = t0.Add(time.Hour)
	c.Pages[recent] = p
	ts := c.Tasks(1, PagePlan{})
	if size := sealAll(t, ts); size >= task.MaxEncodedSize/2 {
		t.Fatalf("task of %d bytes", size)
	}
	if f := ts[0].KnownFilter; len(f.Bits) != task.MaxFilterBytes || !f.Has(p.Digest) {
		t.Fatalf("filter of %d bytes; holds the most recent page: %v", len(f.Bits), f.Has(p.Digest))
	}
}

// TestRecrawlPastValidatorLimit: a host crawled with 8,000 pages carrying
// validators is tasked again. Before tasks were bounded, its task carried
// every digest and validator, passed task.MaxEncodedSize and could not be
// signed, so the host was never recrawled.
func TestRecrawlPastValidatorLimit(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"https://big.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	src := bigChannel(8000)
	fb := Feedback{}
	for u, p := range src.Pages {
		fb.Pages = append(fb.Pages, PageResult{URL: u, Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified})
	}
	recs := issue(t, d, "big.example", 1, t0)
	if _, err := d.Complete(recs[0].ID, "p", fb, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c, err := d.Get("big.example")
	if err != nil || len(c.Pages) != 8000 {
		t.Fatalf("channel knows %d pages, %v", len(c.Pages), err)
	}
	for round := 2; round <= 3; round++ {
		ts := c.Tasks(round, PagePlan{})
		size := sealAll(t, ts)
		t.Logf("round %d: task of %d bytes, %d validators", round, size, len(ts[0].Validators))
		recs := issue(t, d, "big.example", round, t0.Add(time.Duration(round)*time.Hour))
		if _, err := d.Complete(recs[0].ID, "p", fb, t0.Add(time.Duration(round)*time.Hour+time.Minute)); err != nil {
			t.Fatal(err)
		}
		if c, err = d.Get("big.example"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestValidatorsListRevisitedPages(t *testing.T) {
	c := bigChannel(5000)
	oldest := "https://big.example/section-03/article-0000003.html"
	gone := "https://big.example/section-04/article-0000004.html"
	for u, p := range c.Pages {
		p.Round = 3
		c.Pages[u] = p
	}
	p := c.Pages[oldest]
	p.Round = 1
	c.Pages[oldest] = p
	p = c.Pages[gone]
	p.Misses = 1
	c.Pages[gone] = p
	tk := c.Tasks(4, PagePlan{Kind: PlanAll})[0]
	vals := tk.Validators
	size := 0
	for _, v := range vals {
		size += len(v.URL) + len(v.ETag) + len(v.LastModified) + validatorFraming
	}
	if len(vals) < 500 || size > validatorBytes || tk.Skip != nil {
		t.Fatalf("%d validators of %d bytes, skip filter %v; want them to fill %d bytes and skip none", len(vals), size, tk.Skip != nil, validatorBytes)
	}
	if vals[0].URL != oldest {
		t.Fatalf("first validator %s, want the page fetched longest ago %s", vals[0].URL, oldest)
	}
	for _, v := range vals {
		if v.URL == gone && (v.ETag != "" || v.LastModified != "") {
			t.Fatal("a page missed by the last crawl is asked for conditionally")
		}
	}
}

// TestPiecesCarryTheirPages: each piece's Pageseen holds its directories'
// pages and the main page, not the rest of the host's.
func TestPiecesCarryTheirPages(t *testing.T) {
	c := bigChannel(30_000)
	c.Pages["https://big.example/"] = Page{Digest: 1, Crawled: t0}
	c.Pieces = []pieces.Piece{
		{Dirs: []string{"/section-00/", "/section-01/"}, Pages: 3000},
		{Dirs: []string{pieces.Root, "/section-02/"}, Pages: 1500},
	}
	ts := c.Tasks(2, PagePlan{})
	if len(ts) != 2 {
		t.Fatalf("%d tasks", len(ts))
	}
	// Piece 0 has 3,001 pages: a filter. Piece 1 has 1,501: a filter too.
	for i, tk := range ts {
		if tk.KnownFilter == nil || !tk.KnownFilter.Has(1) {
			t.Fatalf("piece %d: no filter or main page missing", i)
		}
	}
	inOther, probes := 0, 0
	for u, p := range c.Pages {
		dir := pageDir(u)
		switch dir {
		case "/section-00/", "/section-01/":
			if !ts[0].KnownFilter.Has(p.Digest) {
				t.Fatalf("piece 0 misses %s", u)
			}
		case "/section-02/":
			if !ts[1].KnownFilter.Has(p.Digest) {
				t.Fatalf("piece 1 misses %s", u)
			}
		case "/section-05/":
			probes++
			if ts[0].KnownFilter.Has(p.Digest) {
				inOther++
			}
		}
	}
	// Pages of no piece test positive only at the false-positive rate.
	if rate := float64(inOther) / float64(probes); rate > 3*task.DefaultFalsePositive {
		t.Fatalf("piece 0 holds %.3f of another directory's pages", rate)
	}
	if s0, s1 := len(ts[0].KnownFilter.Bits), len(ts[1].KnownFilter.Bits); s0 > 4000 || s1 > 2000 {
		t.Fatalf("piece filters of %d and %d bytes: sized for the host, not the piece", s0, s1)
	}
}

func TestGonePagesDropped(t *testing.T) {
	const (
		kept = "http://a.example/news/kept"
		gone = "http://a.example/news/gone"
		back = "http://a.example/news/back"
	)
	tests := []struct {
		name string
		// crawls lists, for each round, the pages returned, and whether
		// the crawl was cut short.
		crawls  [][]string
		stopped []string
		want    []string
	}{
		{name: "gone three crawls", crawls: [][]string{{kept, gone, back}, {kept, back}, {kept, back}, {kept, back}}, want: []string{kept, back}},
		{name: "gone two crawls", crawls: [][]string{{kept, gone, back}, {kept, back}, {kept, back}}, want: []string{kept, gone, back}},
		{name: "back between misses", crawls: [][]string{{kept, gone, back}, {kept, gone}, {kept, gone}, {kept, gone, back}, {kept, gone}, {kept, gone}}, want: []string{kept, gone, back}},
		{name: "cut short", crawls: [][]string{{kept, gone, back}, {kept, back}, {kept, back}, {kept, back}}, stopped: []string{"", "", "max pages", ""}, want: []string{kept, gone, back}},
		{name: "outage", crawls: [][]string{{kept, gone, back}, {kept}, {kept}, {kept}}, want: []string{kept, gone, back}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDB(t, "", Options{})
			if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
				t.Fatal(err)
			}
			now := t0
			for i, urls := range tt.crawls {
				fb := Feedback{}
				if tt.stopped != nil {
					fb.Stopped = tt.stopped[i]
				}
				for _, u := range urls {
					fb.Pages = append(fb.Pages, PageResult{URL: u, Digest: task.DigestString(u)})
				}
				recs := issue(t, d, "a.example", i+1, now)
				now = now.Add(time.Hour)
				if _, err := d.Complete(recs[0].ID, "p", fb, now); err != nil {
					t.Fatal(err)
				}
			}
			c, err := d.Get("a.example")
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Pages) != len(tt.want) || c.ExpectedPages != len(tt.want) {
				t.Fatalf("channel knows %d pages (%v), want %v", len(c.Pages), c.Pages, tt.want)
			}
			for _, u := range tt.want {
				if _, ok := c.Pages[u]; !ok {
					t.Fatalf("%s dropped; pages %v", u, c.Pages)
				}
			}
		})
	}
}

// TestGonePagesDroppedByPiece: a piece's crawl counts misses only in its
// own directories.
func TestGonePagesDroppedByPiece(t *testing.T) {
	c := Channel{ID: "a.example", Round: 1, Pieces: []pieces.Piece{{Dirs: []string{"/news/"}}, {Dirs: []string{pieces.Root, "/misc/"}}}, Pages: map[string]Page{
		"http://a.example/news/a": {Digest: 1}, "http://a.example/news/b": {Digest: 2}, "http://a.example/news/c": {Digest: 3},
		"http://a.example/misc/x": {Digest: 4},
	}}
	fb := Feedback{Pages: []PageResult{{URL: "http://a.example/news/a", Digest: 1}, {URL: "http://a.example/news/b", Digest: 2}}}
	for round := 1; round <= missLimit; round++ {
		c.Round = round
		c.apply(fb, t0.Add(time.Duration(round)*time.Hour), round, taskID(c.ID, round, 0), nil, DefaultLimit)
	}
	if _, ok := c.Pages["http://a.example/news/c"]; ok {
		t.Fatal("page of the piece missed three times kept")
	}
	if _, ok := c.Pages["http://a.example/misc/x"]; !ok {
		t.Fatal("page of another piece dropped")
	}
	// A late result of an earlier round counts nothing.
	c.Pages["http://a.example/news/c"] = Page{Digest: 3}
	for range missLimit {
		c.apply(fb, t0.Add(10*time.Hour), 1, taskID(c.ID, 1, 0), nil, DefaultLimit)
	}
	if _, ok := c.Pages["http://a.example/news/c"]; !ok {
		t.Fatal("late results of an old round dropped a page")
	}
}

// BenchmarkTaskSize reports the largest encoded task of a whole-host
// recrawl against the host's known pages, all with validators.
func BenchmarkTaskSize(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			c := bigChannel(n)
			size := 0
			b.ResetTimer()
			for range b.N {
				ts := c.Tasks(1, PagePlan{})
				for _, tk := range ts {
					enc, err := tk.Encode()
					if err != nil {
						b.Fatal(err)
					}
					size = max(size, len(enc))
				}
			}
			b.ReportMetric(float64(size), "task-bytes")
			b.ReportMetric(float64(size)/task.MaxEncodedSize*100, "%-of-limit")
		})
	}
}
