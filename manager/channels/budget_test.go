package channels

import (
	"fmt"
	"strings"
	"testing"
)

// TestTrapBudget: a wildcard trap of 10,000 subdomains, reported by the
// trap's own crawls, ends with at most the domain's budget of channels,
// its seed included; other domains' links still make channels.
func TestTrapBudget(t *testing.T) {
	d := openDB(t, "", Options{MaxPerFeedback: 20000, MaxChannels: 50000})
	ts := tasksOn(t, d, "trap.test")
	var urls []string
	for i := range 10000 {
		urls = append(urls, fmt.Sprintf("http://w%d.trap.test/", i))
	}
	out, err := d.Complete(ts[0].ID, "p", Feedback{InterSite: append(urls[:5000:5000], "http://elsewhere.example/")}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Created) != DefaultDomainBudget {
		t.Fatalf("first crawl made %d channels, want %d (the budget less the seed, and elsewhere.example)", len(out.Created), DefaultDomainBudget)
	}
	// A crawl of one of the trap's subdomains reports the other half.
	c, err := d.Get("w7.trap.test")
	if err != nil {
		t.Fatal(err)
	}
	next := issueOn(t, d, c.ID, "w7.trap.test", 1, t0)[0]
	if _, err := d.Complete(next.ID, "p", Feedback{InterSite: append(urls[5000:], "http://another.example/")}, t0); err != nil {
		t.Fatal(err)
	}
	all, err := d.All(0)
	if err != nil {
		t.Fatal(err)
	}
	trap, others := 0, 0
	for _, ch := range all {
		if ch.ID == "trap.test" || strings.HasSuffix(ch.ID, ".trap.test") {
			trap++
		} else {
			others++
		}
	}
	if trap > DefaultDomainBudget || others != 2 {
		t.Fatalf("%d channels of trap.test (budget %d), %d of other domains (want 2)", trap, DefaultDomainBudget, others)
	}
}

// TestLinkedFromMoreDomainsFirst: of a result's new hosts, the one more
// domains link to becomes a channel first, whatever the order reported.
func TestLinkedFromMoreDomainsFirst(t *testing.T) {
	d := openDB(t, "", Options{MaxPerFeedback: 1})
	ts := tasksOn(t, d, "a.example", "b.example")
	// a.example links p.test, then q.test: one channel per result, p.
	out, err := d.Complete(ts[0].ID, "p", Feedback{InterSite: []string{"http://p.test/", "http://q.test/"}}, t0)
	if err != nil || len(out.Created) != 1 || out.Created[0].ID != "p.test" {
		t.Fatalf("first result made %v, %v; want p.test", out.Created, err)
	}
	// b.example links r.test first, then q.test: q has two linking
	// domains, r one.
	out, err = d.Complete(ts[1].ID, "p", Feedback{InterSite: []string{"http://r.test/", "http://q.test/"}}, t0)
	if err != nil || len(out.Created) != 1 || out.Created[0].ID != "q.test" {
		t.Fatalf("second result made %v, %v; want q.test, linked from two domains", out.Created, err)
	}
}
