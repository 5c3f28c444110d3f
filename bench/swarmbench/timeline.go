package main

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// pollEvery is how often the crawl's progress is read from the web.
const pollEvery = 250 * time.Millisecond

// timeline follows a crawl from the web's counters: when each host was
// first and last served a page, and when the web as a whole had served a
// half and nine tenths of its pages. It tells a crawl held up by a few
// hosts (a long tail) from one slow all along.
type timeline struct {
	pages        map[string]int64 // host → its page count
	first, last  map[string]time.Duration
	served       map[string]int64 // host → pages served, at the last poll
	half, ninety time.Duration
	// ago holds the per-host counts of the polls within the last second,
	// oldest first (the last is served); busy sums, over the polls, the
	// hosts served a page in the second before each (each host is crawled
	// over one connection, so these are the connections at work), and
	// polls counts them.
	ago   []map[string]int64
	busy  float64
	polls int
}

func newTimeline(hosts []fixture.HostInfo) *timeline {
	t := &timeline{pages: map[string]int64{}, first: map[string]time.Duration{}, last: map[string]time.Duration{}}
	for _, h := range hosts {
		t.pages[h.Name] = int64(h.Pages)
	}
	return t
}

// note records the counters polled at elapsed time at.
func (t *timeline) note(at time.Duration, served, total int64, web map[string]fixture.Stats) {
	now := make(map[string]int64, len(web))
	for name, st := range web {
		now[name] = st.Pages
	}
	if len(t.ago) > 0 && at >= time.Second {
		for name, n := range now {
			if n > t.ago[0][name] {
				t.busy++
			}
		}
		t.polls++
	}
	t.served = now
	if t.ago = append(t.ago, now); len(t.ago) > int(time.Second/pollEvery) {
		t.ago = t.ago[1:]
	}
	if t.half == 0 && 2*served >= total {
		t.half = at
	}
	if t.ninety == 0 && 10*served >= 9*total {
		t.ninety = at
	}
	for name, st := range web {
		if _, ok := t.first[name]; !ok && st.Pages > 0 {
			t.first[name] = at
		}
		if _, ok := t.last[name]; !ok && st.Pages >= t.pages[name] {
			t.last[name] = at
		}
	}
}

func (t *timeline) String() string {
	var lastHost string
	var lastAt, startedBy time.Duration
	for name, at := range t.last {
		if at > lastAt {
			lastHost, lastAt = name, at
		}
	}
	for _, at := range t.first {
		startedBy = max(startedBy, at)
	}
	s := fmt.Sprintf(" half the pages served at %.0f s, 90 %% at %.0f s; every host begun by %.0f s", t.half.Seconds(), t.ninety.Seconds(), startedBy.Seconds())
	if t.polls > 0 {
		s += fmt.Sprintf("; %.1f hosts served a page in each second, on average", t.busy/float64(t.polls))
	}
	if lastHost != "" {
		took := lastAt - t.first[lastHost]
		s += fmt.Sprintf("; the last host done, %s (%d pages), begun at %.0f s, done at %.0f s (%.2f s a page)",
			lastHost, t.pages[lastHost], t.first[lastHost].Seconds(), lastAt.Seconds(), took.Seconds()/float64(max(t.pages[lastHost], 1)))
	}
	var short, shortPages, extra int64
	for name, n := range t.pages {
		if got := t.served[name]; got < n {
			short++
			shortPages += n - got
		} else {
			extra += got - n
		}
	}
	s += fmt.Sprintf("; at the end %d hosts not served whole (%d pages short), %d pages served again", short, shortPages, extra)
	return s + ";"
}
