package channels

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// tasksOn adds a channel per host and issues a round of each whose task
// crawls it, returning the task records in the order of hosts.
func tasksOn(t *testing.T, d *DB, hosts ...string) []Task {
	t.Helper()
	var seeds []string
	for _, h := range hosts {
		seeds = append(seeds, "http://"+h+"/")
	}
	created, err := d.AddSeeds(seeds, t0)
	if err != nil || len(created) != len(hosts) {
		t.Fatalf("AddSeeds: %d channels, %v", len(created), err)
	}
	var out []Task
	for i, c := range created {
		out = append(out, issueOn(t, d, c.ID, hosts[i], 1, t0)[0])
	}
	return out
}

// limited is testLease with caps of two per address and per domain.
func limited(l Limits) LeaseTimes {
	lt := testLease
	lt.Limits = l
	return lt
}

func grantUnder(t *testing.T, d *DB, id string, now time.Time, lt LeaseTimes) bool {
	t.Helper()
	_, ok, err := d.Grant(id, now, lt)
	if err != nil {
		t.Fatalf("Grant(%s): %v", id, err)
	}
	if ok {
		if err := d.Signed(id, []byte("env")); err != nil {
			t.Fatal(err)
		}
		if err := d.MarkSent(id, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	return ok
}

// TestDomainCap: three hosts of one registrable domain get two leases at
// once; the third is granted when one of the two ends.
func TestDomainCap(t *testing.T) {
	d := openDB(t, "", Options{})
	lt := limited(Limits{PerIP: 2, PerDomain: 2})
	ts := tasksOn(t, d, "a.shop.co.uk", "b.shop.co.uk", "c.shop.co.uk", "other.co.uk")
	for i, want := range []bool{true, true, false, true} {
		if got := grantUnder(t, d, ts[i].ID, t0, lt); got != want {
			t.Fatalf("grant %s = %v, want %v", ts[i].Host, got, want)
		}
	}
	now := t0.Add(time.Second)
	if _, err := d.ClaimFrom(ts[0].ID, 1, "p1", nil, now, lt); err != nil {
		t.Fatal(err)
	}
	if grantUnder(t, d, ts[2].ID, now, lt) {
		t.Fatal("third lease on shop.co.uk granted while two may be live")
	}
	if _, err := d.Complete(ts[0].ID, "p1", Feedback{}, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if !grantUnder(t, d, ts[2].ID, now.Add(2*time.Second), lt) {
		t.Fatal("third lease on shop.co.uk not granted after one of two ended")
	}
}

// TestIPCap: hosts of different domains that their crawlers find at one
// address run two at a time: a third claim is held until one ends, and
// once the address is known, grants keep to the cap too.
func TestIPCap(t *testing.T) {
	d := openDB(t, "", Options{})
	lt := limited(Limits{PerIP: 2, PerDomain: 2})
	ts := tasksOn(t, d, "shop1.example", "shop2.example", "shop3.example")
	for _, tk := range ts {
		if !grantUnder(t, d, tk.ID, t0, lt) { // addresses unknown yet
			t.Fatalf("grant %s refused", tk.Host)
		}
	}
	shared := []string{"203.0.113.7"}
	now := t0.Add(time.Second)
	for i, peer := range []string{"p1", "p2"} {
		if _, err := d.ClaimFrom(ts[i].ID, 1, peer, shared, now, lt); err != nil {
			t.Fatalf("claim %s: %v", ts[i].Host, err)
		}
	}
	_, err := d.ClaimFrom(ts[2].ID, 1, "p3", shared, now, lt)
	if !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("third claim on one address = %v, want ErrLeaseHeld", err)
	}
	// The address is reported as ::ffff:203.0.113.7 by one crawler: the
	// same address.
	if _, err := d.ClaimFrom(ts[2].ID, 1, "p3", []string{"::ffff:203.0.113.7"}, now, lt); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("claim with the address IPv4-mapped = %v, want ErrLeaseHeld", err)
	}
	now = now.Add(time.Second)
	if _, err := d.Complete(ts[0].ID, "p1", Feedback{HostAddrs: shared}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ClaimFrom(ts[2].ID, 1, "p3", shared, now, lt); err != nil {
		t.Fatalf("claim after one of two ended: %v", err)
	}
	// shop1's next round: its address is known, and two run there.
	c, _ := d.Get(ts[0].Channel)
	next := issueOn(t, d, c.ID, "shop1.example", 2, now)[0]
	if grantUnder(t, d, next.ID, now.Add(10*time.Second), lt) {
		t.Fatal("lease granted on a host whose address has two leases running")
	}
}

// TestSharedFrontEnd: an address seen serving more than SharedAbove
// registrable domains takes SharedIP leases at once, each domain still
// its own cap.
func TestSharedFrontEnd(t *testing.T) {
	d := openDB(t, "", Options{})
	lt := limited(Limits{PerIP: 2, PerDomain: 2, SharedIP: 4, SharedAbove: 3})
	var hosts []string
	for i := range 6 {
		hosts = append(hosts, fmt.Sprintf("site%d.example", i))
	}
	ts := tasksOn(t, d, hosts...)
	cdn := []string{"198.51.100.1"}
	claimed := 0
	for i, tk := range ts {
		if !grantUnder(t, d, tk.ID, t0, lt) {
			t.Fatalf("grant %s refused", tk.Host)
		}
		_, err := d.ClaimFrom(tk.ID, 1, fmt.Sprintf("p%d", i), cdn, t0, lt)
		switch {
		case err == nil:
			claimed++
		case !errors.Is(err, ErrLeaseHeld):
			t.Fatal(err)
		}
	}
	// Two claims run before the address counts more than three domains;
	// the claims after raised it (held claims record their domain too)
	// and the cap with it, to four.
	if claimed != 4 {
		t.Fatalf("%d leases on a front end serving 6 domains, want the shared cap 4", claimed)
	}
}

// TestIPWait: a lease on an address starts no sooner than the IP wait
// after the last one on it started.
func TestIPWait(t *testing.T) {
	d := openDB(t, "", Options{})
	lt := limited(Limits{PerIP: 2, PerDomain: 2, Gap: 10 * time.Second})
	ts := tasksOn(t, d, "one.example", "two.example")
	addr := []string{"192.0.2.9"}
	for _, tk := range ts {
		grantUnder(t, d, tk.ID, t0, lt)
	}
	if _, err := d.ClaimFrom(ts[0].ID, 1, "p1", addr, t0, lt); err != nil {
		t.Fatal(err)
	}
	_, err := d.ClaimFrom(ts[1].ID, 1, "p2", addr, t0.Add(time.Second), lt)
	if !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("claim 1 s after another on the address = %v, want held", err)
	}
	// The held claim says when the wait is over: the claimer need not
	// guess, and starts before its task's start-by.
	if h, ok := errors.AsType[*HeldError](err); !ok || h.RetryIn != 9*time.Second {
		t.Fatalf("held claim %v (%T): want a HeldError to retry in 9s", err, err)
	}
	if _, err := d.ClaimFrom(ts[1].ID, 1, "p2", addr, t0.Add(11*time.Second), lt); err != nil {
		t.Fatalf("claim after the IP wait: %v", err)
	}
}

// TestAddressLieBounded: a volunteer that reports a made-up address for
// its host does not free the host from the address honest crawlers
// reported; a claim reports at most MaxReportAddrs addresses.
func TestAddressLieBounded(t *testing.T) {
	d := openDB(t, "", Options{})
	lt := limited(Limits{PerIP: 1, PerDomain: 2})
	ts := tasksOn(t, d, "x.example", "y.example")
	real := []string{"203.0.113.50"}
	for _, tk := range ts {
		grantUnder(t, d, tk.ID, t0, lt)
	}
	if _, err := d.ClaimFrom(ts[0].ID, 1, "honest", real, t0, lt); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Complete(ts[0].ID, "honest", Feedback{HostAddrs: real}, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	c, _ := d.Get(ts[0].Channel)
	next := issueOn(t, d, c.ID, "x.example", 2, t0)[0]
	now := t0.Add(5 * time.Second)
	if !grantUnder(t, d, next.ID, now, lt) {
		t.Fatal("x.example's next lease not granted")
	}
	// The liar holds x.example and says it is somewhere else, with many
	// addresses.
	var lie []string
	for i := range 20 {
		lie = append(lie, fmt.Sprintf("10.9.9.%d", i))
	}
	if _, err := d.ClaimFrom(next.ID, 2, "liar", lie, now, lt); err != nil {
		t.Fatal(err)
	}
	// y.example is at the real address: x.example still counts there.
	if _, err := d.ClaimFrom(ts[1].ID, 1, "p2", real, now, lt); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("claim beside a host whose crawler lied about its address = %v, want held", err)
	}
	if got := len(ParseAddrs(lie)); got != MaxReportAddrs {
		t.Fatalf("ParseAddrs kept %d addresses, want %d", got, MaxReportAddrs)
	}
}
