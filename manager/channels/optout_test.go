package channels

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestParseOptOut(t *testing.T) {
	for _, c := range []struct {
		in, name string
		domain   bool
		bad      bool
	}{
		{in: "Example.COM", name: "example.com", domain: true},
		{in: "www.example.com", name: "www.example.com"},
		{in: "https://www.Example.com:8443/about?x=1", name: "www.example.com"},
		{in: "shop.example.co.uk.", name: "shop.example.co.uk"},
		{in: "example.co.uk", name: "example.co.uk", domain: true},
		{in: "bücher.example", name: "xn--bcher-kva.example", domain: true},
		{in: "203.0.113.7:8080", name: "203.0.113.7"},
		{in: "co.uk", bad: true},
		{in: "localhost", bad: true},
		{in: "ftp://example.com/", bad: true},
		{in: "", bad: true},
		{in: "exa mple.com", bad: true},
	} {
		name, domain, err := ParseOptOut(c.in)
		switch {
		case c.bad && !errors.Is(err, ErrBadSeed):
			t.Errorf("ParseOptOut(%q) = %q, %v, %v; want ErrBadSeed", c.in, name, domain, err)
		case !c.bad && (err != nil || name != c.name || domain != c.domain):
			t.Errorf("ParseOptOut(%q) = %q, %v, %v; want %q, %v", c.in, name, domain, err, c.name, c.domain)
		}
	}
}

func TestOptOutCovers(t *testing.T) {
	dom := OptOut{Name: "example.com", Domain: true}
	host := OptOut{Name: "www.example.com"}
	for _, c := range []struct {
		o    OptOut
		host string
		want bool
	}{
		{dom, "example.com", true},
		{dom, "www.example.com:8080", true},
		{dom, "a.b.example.com", true},
		{dom, "badexample.com", false},
		{dom, "example.com.evil.test", false},
		{host, "www.example.com", true},
		{host, "WWW.example.com:443", true},
		{host, "example.com", false},
		{host, "a.www.example.com", false},
	} {
		if got := c.o.Covers(c.host); got != c.want {
			t.Errorf("%+v covers %q = %v, want %v", c.o, c.host, got, c.want)
		}
	}
}

// TestOptOutStopsEverything: an opt-out removes the channels it covers,
// ends their open tasks with their leases (the claimed one named for
// the revocation), refuses the holder's renewal and any claim or grant on
// the host, and keeps seeds, links and a second manager's round from
// bringing the host back. Lifting it lets a seed bring it back; a host
// it does not cover is untouched throughout.
func TestOptOutStopsEverything(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://www.site.example/", "http://shop.site.example:8080/", "http://other.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	www := issueOn(t, d, "www.site.example", "www.site.example", 1, t0)[0]
	shop := issueOn(t, d, "shop.site.example:8080", "shop.site.example:8080", 1, t0)[0]
	other := issueOn(t, d, "other.example", "other.example", 1, t0)[0]
	for _, id := range []string{www.ID, other.ID} {
		g := grantSend(t, d, id, t0, true)
		if _, err := d.Claim(id, g.Epoch, "crawler", t0, testLease); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(time.Minute)
	res, err := d.AddOptOut("Site.Example", OptOutByOperator, now)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OptOut.Domain || res.OptOut.Name != "site.example" || res.Known {
		t.Errorf("opt-out recorded as %+v", res)
	}
	slices.Sort(res.Channels)
	if !slices.Equal(res.Channels, []string{"shop.site.example:8080", "www.site.example"}) {
		t.Errorf("channels removed %v, want both of site.example's", res.Channels)
	}
	var ended []string
	for _, e := range res.Ended {
		ended = append(ended, e.ID)
		if e.ID == www.ID && e.Holder != "crawler" {
			t.Errorf("the claimed task is reported without its holder: %+v", e)
		}
	}
	slices.Sort(ended)
	if want := []string{shop.ID, www.ID}; !slices.Equal(ended, sortedCopy(want)) {
		t.Errorf("tasks ended %v, want %v", ended, want)
	}
	for _, id := range []string{www.ID, shop.ID} {
		if tk, _ := d.Task(id); tk.State != TaskCancelled || tk.Reason != ReasonOptedOut {
			t.Errorf("task %s is %s (%q), want cancelled as opted out", id, tk.State, tk.Reason)
		}
	}
	if _, err := d.Renew(www.ID, 1, "crawler", Progress{Pages: 9}, now, testLease); !errors.Is(err, ErrLeaseOver) || !errors.Is(err, ErrOptedOut) {
		t.Errorf("renewal after the opt-out: %v, want the lease over because the site opted out", err)
	}
	if _, err := d.Renew(other.ID, 1, "crawler", Progress{Pages: 9}, now, testLease); err != nil {
		t.Errorf("another host's renewal: %v", err)
	}

	// A spot-check issued before the opt-out (or a round by a manager
	// that had not seen it) is ended at its grant, never sent.
	late := Task{ID: "check/www.site.example", Checks: www.ID, Channel: "www.site.example", Issued: now, Deadline: now.Add(time.Hour), Spec: www.Spec, Host: "www.site.example"}
	if err := d.IssueCheck(late); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := d.Grant(late.ID, now.Add(time.Hour), testLease); ok || !errors.Is(err, ErrNotGrantable) || !errors.Is(err, ErrOptedOut) {
		t.Errorf("grant on an opted-out host: ok %v, %v", ok, err)
	}
	if tk, _ := d.Task(late.ID); tk.State != TaskCancelled {
		t.Errorf("the late task is %s, want cancelled", tk.State)
	}

	// Seeds, links and IndexNow do not bring it back.
	a, err := d.Add([]string{"https://www.site.example/new", "http://new.site.example/", "http://fresh.example/"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.OptedOut) != 2 || len(a.Created) != 1 || a.Created[0].ID != "fresh.example" {
		t.Errorf("seeds added as %+v, want the two on site.example left out", a)
	}
	out, err := d.Complete(other.ID, "crawler", Feedback{InterSite: []string{"http://blog.site.example/", "http://linked.example/"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Created {
		if c.ID == "blog.site.example" {
			t.Errorf("a link made a channel of an opted-out host")
		}
	}
	if _, err := d.Push("www.site.example", []string{"http://www.site.example/x"}, now); !errors.Is(err, ErrRemoved) {
		t.Errorf("IndexNow push to an opted-out host: %v, want ErrRemoved", err)
	}
	if o, ok, _ := d.OptedOut("a.b.site.example:8080"); !ok || o.Name != "site.example" {
		t.Errorf("OptedOut(a.b.site.example) = %+v, %v", o, ok)
	}

	// Added again: known, nothing changes. Lifted: a seed brings it back.
	if again, err := d.AddOptOut("site.example", "someone else", now.Add(time.Hour)); err != nil || !again.Known || again.OptOut.By != OptOutByOperator {
		t.Errorf("opted out again: %+v, %v", again, err)
	}
	if list, _ := d.OptOuts(); len(list) != 1 {
		t.Errorf("list %+v, want one entry", list)
	}
	if found, err := d.RemoveOptOut("https://site.example/"); !found || err != nil {
		t.Fatalf("RemoveOptOut = %v, %v", found, err)
	}
	if c, _ := d.Get("www.site.example"); !c.Removed() {
		t.Errorf("lifting the opt-out brought the channel back by itself")
	}
	if a, err := d.Add([]string{"http://www.site.example/"}, now); err != nil || len(a.OptedOut) != 0 {
		t.Fatalf("seed after the opt-out was lifted: %+v, %v", a, err)
	}
	if c, _ := d.Get("www.site.example"); c.Removed() {
		t.Errorf("a seed after the opt-out was lifted did not bring the channel back")
	}
}

// TestHostOptOutLeavesTheDomain: an opt-out of a host that is not a
// registrable domain covers that host alone.
func TestHostOptOutLeavesTheDomain(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://www.site.example/", "http://shop.site.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	res, err := d.AddOptOut("www.site.example", "site: proven by token", t0)
	if err != nil {
		t.Fatal(err)
	}
	if res.OptOut.Domain || !slices.Equal(res.Channels, []string{"www.site.example"}) {
		t.Errorf("opted out %+v", res)
	}
	if _, ok, _ := d.OptedOut("shop.site.example"); ok {
		t.Errorf("a host's opt-out covers its sibling")
	}
	if _, err := d.RemoveOptOut("co.uk"); !errors.Is(err, ErrBadSeed) {
		t.Errorf("RemoveOptOut(co.uk) = %v, want ErrBadSeed", err)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
