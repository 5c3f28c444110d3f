package channels

import (
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// Source says how a channel came to be.
const (
	SourceSeed      = "seed"       // the operator's seed file or API
	SourceInterSite = "inter-site" // found by a crawl of another channel
)

// Channel is one web host the manager recrawls.
type Channel struct {
	// ID is the host with its port when not the default ("example.com").
	ID string `json:"id"`
	// Index numbers channels densely in the order they were added; it is
	// the channel's index in the recrawl strategy.
	Index  int       `json:"index"`
	Source string    `json:"source"`
	Added  time.Time `json:"added"`
	// Seeds are the index pages and inter-site URLs the crawl starts from.
	Seeds []string `json:"seeds"`
	// Filters restrict the crawl (regular expressions, any must match);
	// empty crawls the whole host. Pieces add their own.
	Filters  []string `json:"filters,omitempty"`
	MaxDepth int      `json:"max_depth"`
	MaxPages int      `json:"max_pages,omitempty"`
	// ExpectedPages is the page count of the last crawl (sizes URLseen).
	ExpectedPages int `json:"expected_pages,omitempty"`
	// Pages are the pages known from the last crawls, by URL.
	Pages map[string]Page `json:"pages,omitempty"`
	// InterSite are the digests of inter-site URLs already reported.
	InterSite []task.Digest `json:"inter_site,omitempty"`
	// Dirs are the last crawl's pages per first-level directory.
	Dirs map[string]int `json:"dirs,omitempty"`
	// Pieces is the current split of a large host; empty crawls it whole.
	Pieces []pieces.Piece `json:"pieces,omitempty"`
	// Estimate accumulates change observations; ChangeInterval is its
	// result, or the prior until a change was seen.
	Estimate       recrawl.ChangeEstimate `json:"estimate"`
	ChangeInterval time.Duration          `json:"change_interval"`
	// Group is the channel's priority group, 0 = fastest-changing.
	Group int `json:"group"`
	// Round counts the rounds submitted; Pending the current round's tasks
	// without a result yet; RoundOK whether one of them brought a result.
	Round   int  `json:"round"`
	Pending int  `json:"pending"`
	RoundOK bool `json:"round_ok,omitempty"`
	// LastSubmit and LastUpdate are the times of the last round submitted
	// and the last result stored.
	LastSubmit time.Time `json:"last_submit"`
	LastUpdate time.Time `json:"last_update"`
	// Counters over the channel's life.
	Submitted int `json:"submitted"`
	Updates   int `json:"updates"`
	Failures  int `json:"failures"`
	// Last is how the latest task ended (nil: none has).
	Last *LastCrawl `json:"last,omitempty"`
	// The user's controls (control.go): Paused keeps new rounds from
	// starting; CrawlSoon makes the channel due at the next tick, paused
	// or not; RemovedAt, when set, takes it off the schedule and out of
	// lists. OtherHosts, when set, overrides Options.StayOnHost.
	Paused     bool      `json:"paused,omitempty"`
	CrawlSoon  bool      `json:"crawl_soon,omitempty"`
	RemovedAt  time.Time `json:"removed_at,omitzero"`
	OtherHosts *bool     `json:"other_hosts,omitempty"`
	// Pushed are the URLs the site pushed (IndexNow) for the next round
	// (pushed.go).
	Pushed Pushes `json:"pushed,omitzero"`
}

// Page is what the manager knows about one page of a channel.
type Page struct {
	Digest       task.Digest `json:"d"`
	ETag         string      `json:"e,omitempty"`
	LastModified string      `json:"m,omitempty"`
	// Crawled is when the page was last fetched.
	Crawled time.Time `json:"t"`
	// Since is when the page's content was last seen to change (zero in
	// records from before it was kept).
	Since time.Time `json:"s,omitzero"`
	// Misses counts the crawls in a row that covered the page and did not
	// return it; at missLimit the page is forgotten.
	Misses int `json:"x,omitempty"`
	// Depth is the link hops from a seed at which the page was found, and
	// Parent the digest of the URL of the page that linked it (0 for a
	// seed, or when not known): the link tree the selective rule walks.
	Depth  int         `json:"dp,omitempty"`
	Parent task.Digest `json:"pa,omitempty"`
	// Round is the channel round that last fetched the page.
	Round int `json:"r,omitempty"`
	// The page's adaptive frequency (recrawl.PageFreq, paper 003 §3.2):
	// it is revisited every FrMax rounds; History has bit k set when its
	// k-th latest crawl found it changed, over Records crawls; Threshold
	// is its selective-incremental threshold and Follow the rule's last
	// decision: revisit the pages it links to in the next round.
	FrMax     int     `json:"fm,omitempty"`
	Records   int     `json:"n,omitempty"`
	History   uint64  `json:"h,omitempty"`
	Threshold float64 `json:"th,omitempty"`
	Follow    bool    `json:"fo,omitempty"`
	// Seen crawls of the page found Changes of them changed, over Span
	// rounds in all (each crawl covers the rounds since the one before):
	// what its change rate is estimated from (changeRate). All three are
	// halved together when Seen reaches seenWindow, so old crawls fade.
	Seen    int `json:"ns,omitempty"`
	Changes int `json:"nc,omitempty"`
	Span    int `json:"sp,omitempty"`
}

// Tasks builds the tasks of the channel's next round: one for the whole
// host, or one per piece, each with the host's main page among the seeds
// and the piece's directories as filters. Each task carries Pageseen, the
// known pages it revisits (chosen by plan, pageplan.go) with their
// validators, and the known pages it leaves alone, of its own pages only
// and bounded whatever the host's size (known.go); the URLs the site
// pushed lead the pages revisited (pushed.go). IDs are
// "<channel>/<round>/<i>". The caller sets Interval and Issued.
func (c *Channel) Tasks(round int, plan PagePlan) []*task.Task {
	base := task.Task{
		Channel:        c.ID,
		Seeds:          append([]string(nil), c.Seeds...),
		Filters:        append([]string(nil), c.Filters...),
		ExpectedPages:  c.ExpectedPages,
		MaxDepth:       c.MaxDepth,
		MaxPages:       c.MaxPages,
		KnownInterSite: append([]task.Digest(nil), c.InterSite...),
	}
	if len(base.Seeds) > task.MaxSeeds {
		base.Seeds = base.Seeds[:task.MaxSeeds]
	}
	plan = plan.withDefaults()
	parents := c.parents(plan)
	if len(c.Pieces) < 2 {
		t := base
		t.ID = taskID(c.ID, round, 0)
		urls := make([]string, 0, len(c.Pages))
		for u := range c.Pages {
			urls = append(urls, u)
		}
		c.known(&t, urls, plan, round, parents)
		out := []*task.Task{&t}
		c.addPushed(out)
		return out
	}
	out := make([]*task.Task, 0, len(c.Pieces))
	for i, urls := range c.piecePages() {
		p := c.Pieces[i]
		t := base
		t.ID = taskID(c.ID, round, i)
		t.Filters = append(append([]string(nil), c.Filters...), pieces.Filters(c.ID, p)...)
		t.ExpectedPages = p.Pages
		t.Seeds = []string{c.mainPage()}
		c.known(&t, urls, plan, round, parents)
		out = append(out, &t)
	}
	c.addPushed(out)
	return out
}

// mainPage returns the host's main page, from the first seed's scheme.
func (c *Channel) mainPage() string {
	scheme := "http"
	if len(c.Seeds) > 0 && len(c.Seeds[0]) > 5 && c.Seeds[0][:5] == "https" {
		scheme = "https"
	}
	return scheme + "://" + c.ID + "/"
}

// maxTaskID is task.Task's limit on IDs.
const maxTaskID = 128

// taskID names task i of a channel's round.
func taskID(channel string, round, i int) string {
	id := fmt.Sprintf("%s/%d/%d", channel, round, i)
	if len(id) <= maxTaskID {
		return id
	}
	sum := sha256.Sum256([]byte(channel))
	return fmt.Sprintf("%x/%d/%d", sum[:16], round, i)
}
