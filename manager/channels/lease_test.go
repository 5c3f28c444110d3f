package channels

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

var testLease = LeaseTimes{Hold: 5 * time.Minute, StartWithin: 30 * time.Minute, Skew: time.Minute, Gap: time.Second}

// issueOn issues a round of channel id whose tasks crawl host, and
// returns the records.
func issueOn(t *testing.T, d *DB, id, host string, round int, now time.Time) []Task {
	t.Helper()
	c, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Task
	for _, tk := range c.Tasks(round, PagePlan{}) {
		spec, err := tk.Encode()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, Task{ID: tk.ID, Channel: id, Round: round, Issued: now, Deadline: now.Add(time.Hour), Spec: spec, Host: host})
	}
	if err := d.Issue(id, round, recs, now); err != nil {
		t.Fatal(err)
	}
	return recs
}

// grantSend grants task id and marks it sent, failing the test unless the
// grant is as wanted.
func grantSend(t *testing.T, d *DB, id string, now time.Time, want bool) Task {
	t.Helper()
	g, ok, err := d.Grant(id, now, testLease)
	if err != nil || ok != want {
		t.Fatalf("Grant(%s) = ok %v, %v; want ok %v", id, ok, err, want)
	}
	if ok {
		if err := d.Signed(id, []byte("env")); err != nil {
			t.Fatal(err)
		}
		if err := d.MarkSent(id, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// twoTasks adds two channels, a.example and b.example, and issues a
// round of each whose task crawls hostA and hostB (the same host for two
// channels of one host), returning the two task records.
func twoTasks(t *testing.T, d *DB, hostA, hostB string) (Task, Task) {
	t.Helper()
	if _, err := d.AddSeeds([]string{"http://a.example/", "http://b.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	chs, _ := d.All(0)
	if len(chs) != 2 {
		t.Fatalf("%d channels", len(chs))
	}
	return issueOn(t, d, chs[0].ID, hostA, 1, t0)[0], issueOn(t, d, chs[1].ID, hostB, 1, t0)[0]
}

// TestOneLeasePerHost: two channels crawling one host (sub-directory
// channels of it, say) never hold live leases
// together, whatever happens to the first: it is claimed, renewed,
// released, lapses, or ends with a result.
func TestOneLeasePerHost(t *testing.T) {
	d := openDB(t, "", Options{})
	a, b := twoTasks(t, d, "h.example", "h.example")

	ga := grantSend(t, d, a.ID, t0, true)
	grantSend(t, d, b.ID, t0, false) // a's lease may be live
	if ga.Epoch != 1 || !ga.StartBy.Equal(t0.Add(testLease.StartWithin)) {
		t.Fatalf("grant %+v", ga)
	}
	// Claimed by p1: another peer's claim is held off, p1's renewals work.
	now := t0.Add(time.Minute)
	if _, err := d.Claim(a.ID, 1, "p1", now, testLease); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(a.ID, 1, "p2", now, testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second claim = %v, want ErrLeaseHeld", err)
	}
	if _, err := d.Claim(a.ID, 2, "p1", now, testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("claim of a wrong epoch = %v, want ErrLeaseOver", err)
	}
	now = now.Add(4 * time.Minute)
	r, err := d.Renew(a.ID, 1, "p1", Progress{Pages: 1}, now, testLease)
	if err != nil || !r.Expires.Equal(now.Add(testLease.Hold)) {
		t.Fatalf("renew = %+v, %v", r, err)
	}
	if _, err := d.Renew(a.ID, 1, "p2", Progress{Pages: 1}, now, testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("renew by a non-holder = %v", err)
	}
	// Past StartBy, the host stays busy while the holder renews.
	now = t0.Add(40 * time.Minute)
	for cur, pages := t0.Add(5*time.Minute), 2; cur.Before(now); cur, pages = cur.Add(4*time.Minute), pages+1 {
		if _, err := d.Renew(a.ID, 1, "p1", Progress{Pages: pages}, cur, testLease); err != nil {
			t.Fatal(err)
		}
	}
	grantSend(t, d, b.ID, now, false)
	if lost, _ := d.Expire(now, testLease.Skew); len(lost) != 0 {
		t.Fatalf("a task whose lease is renewed was counted lost: %+v", lost)
	}
	// A result from anyone but the holder is refused; the holder's ends
	// the lease, and b gets the next epoch.
	if _, err := d.Complete(a.ID, "p2", Feedback{}, now); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("result from a non-holder = %v, want ErrNotHolder", err)
	}
	if _, err := d.Complete(a.ID, "p1", Feedback{}, now); err != nil {
		t.Fatal(err)
	}
	// Not before the politeness wait since the last crawler's result.
	grantSend(t, d, b.ID, now.Add(testLease.Gap-time.Millisecond), false)
	gb := grantSend(t, d, b.ID, now.Add(testLease.Gap), true)
	if gb.Epoch != 2 {
		t.Fatalf("second lease has epoch %d, want 2", gb.Epoch)
	}
}

func TestLeaseLapse(t *testing.T) {
	tests := []struct {
		name string
		// act runs on the granted task; it returns when the lease is
		// last live (before the skew allowance).
		act  func(t *testing.T, d *DB, id string) time.Time
		lost bool
	}{
		{"never claimed", func(t *testing.T, d *DB, id string) time.Time {
			return t0.Add(testLease.StartWithin)
		}, true},
		{"claimed, holder went silent", func(t *testing.T, d *DB, id string) time.Time {
			if _, err := d.Claim(id, 1, "p1", t0.Add(time.Minute), testLease); err != nil {
				t.Fatal(err)
			}
			return t0.Add(time.Minute + testLease.Hold)
		}, true},
		{"released for an heir that never claimed", func(t *testing.T, d *DB, id string) time.Time {
			if _, err := d.Claim(id, 1, "p1", t0.Add(time.Minute), testLease); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Release(id, 1, "p1", 0, t0); err != nil {
				t.Fatal(err)
			}
			return t0.Add(testLease.StartWithin)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDB(t, "", Options{})
			if _, err := d.AddSeeds([]string{"http://h.example/"}, t0); err != nil {
				t.Fatal(err)
			}
			a := issueOn(t, d, "h.example", "h.example", 1, t0)[0]
			grantSend(t, d, a.ID, t0, true)
			last := tt.act(t, d, a.ID)
			// Within the skew allowance the lease may still be live.
			if lost, _ := d.Expire(last.Add(testLease.Skew-time.Second), testLease.Skew); len(lost) != 0 {
				t.Fatalf("lost within the skew allowance")
			}
			b := issueOn(t, d, "h.example", "h.example", 2, t0)
			grantSend(t, d, b[0].ID, last.Add(testLease.Skew-time.Second), false)
			lost, err := d.Expire(last.Add(testLease.Skew+time.Second), testLease.Skew)
			if err != nil || (len(lost) == 1) != tt.lost {
				t.Fatalf("Expire = %+v, %v", lost, err)
			}
			grantSend(t, d, b[0].ID, last.Add(testLease.Skew+time.Second+testLease.Gap), true)
		})
	}
}

// claimedByLeaver is a database whose one task, a (epoch 1, sent at t0),
// "leaver" claimed at t0.
func claimedByLeaver(t *testing.T) (*DB, Task) {
	t.Helper()
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://h.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	a := issueOn(t, d, "h.example", "h.example", 1, t0)[0]
	grantSend(t, d, a.ID, t0, true)
	if _, err := d.Claim(a.ID, 1, "leaver", t0, testLease); err != nil {
		t.Fatal(err)
	}
	return d, a
}

// TestHandoverLease: a released lease goes to the heir that claims it,
// and only then; the leaver cannot renew it any more.
func TestHandoverLease(t *testing.T) {
	d, a := claimedByLeaver(t)
	if _, err := d.Claim(a.ID, 1, "heir", t0.Add(time.Second), testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("heir's claim before the release = %v", err)
	}
	if _, err := d.Release(a.ID, 1, "heir", 0, t0); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("release by a non-holder = %v", err)
	}
	released := t0.Add(time.Second)
	if _, err := d.Release(a.ID, 1, "leaver", 0, released); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Renew(a.ID, 1, "leaver", Progress{Pages: 1}, t0.Add(2*time.Second), testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("renewal after the release = %v", err)
	}
	// The leaver's last request came just before its release: the heir
	// waits out the politeness wait (testLease.Gap) after it.
	if _, err := d.Claim(a.ID, 1, "heir", released.Add(testLease.Gap/2), testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("heir's claim within the politeness wait after the release = %v; want ErrLeaseHeld", err)
	}
	if _, err := d.Claim(a.ID, 1, "heir", t0.Add(3*time.Second), testLease); err != nil {
		t.Fatalf("heir's claim after the release = %v", err)
	}
	// Too late to start: past StartBy nobody new may claim.
	if _, err := d.Release(a.ID, 1, "heir", 0, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(a.ID, 1, "third", t0.Add(testLease.StartWithin), testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("claim after StartBy = %v", err)
	}
}

// TestHeirKeepsTheHostsWait: a holder that releases its lease reports the
// wait its host asked for (Crawl-delay); the heir's claim waits that long
// after the release when it is longer than the operator's.
func TestHeirKeepsTheHostsWait(t *testing.T) {
	d, a := claimedByLeaver(t)
	asked := testLease.Gap + 4*time.Second
	released := t0.Add(time.Second)
	if _, err := d.Release(a.ID, 1, "leaver", asked, released); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(a.ID, 1, "heir", released.Add(testLease.Gap+time.Second), testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("heir's claim past the operator's wait, within the host's = %v; want ErrLeaseHeld", err)
	}
	if _, err := d.Claim(a.ID, 1, "heir", released.Add(asked), testLease); err != nil {
		t.Fatalf("heir's claim after the host's wait = %v", err)
	}

	// A leaver that lies about the wait holds its heir no longer than
	// a renewal would honour.
	d, a = claimedByLeaver(t)
	if _, err := d.Release(a.ID, 1, "leaver", 48*time.Hour, released); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(a.ID, 1, "heir", released.Add(StallWait), testLease); err != nil {
		t.Fatalf("heir's claim a StallWait after a release claiming 48 h = %v", err)
	}

	// A leaver stopped before it read the host's Crawl-delay releases
	// with none: the heir keeps the one the host's last crawler reported.
	d = openDB(t, "", Options{})
	a, b := twoTasks(t, d, "h.example", "h.example")
	ga := grantSend(t, d, a.ID, t0, true)
	if _, err := d.Claim(a.ID, ga.Epoch, "p1", t0, testLease); err != nil {
		t.Fatal(err)
	}
	done := t0.Add(time.Minute)
	if _, err := d.Complete(a.ID, "p1", Feedback{HostWait: asked}, done); err != nil {
		t.Fatal(err)
	}
	gb := grantSend(t, d, b.ID, done.Add(asked), true)
	if _, err := d.Claim(b.ID, gb.Epoch, "leaver", done.Add(asked), testLease); err != nil {
		t.Fatal(err)
	}
	released = done.Add(asked + time.Second)
	if _, err := d.Release(b.ID, gb.Epoch, "leaver", 0, released); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(b.ID, gb.Epoch, "heir", released.Add(testLease.Gap+time.Second), testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("heir's claim past the operator's wait, within the host's known one = %v; want ErrLeaseHeld", err)
	}
	if _, err := d.Claim(b.ID, gb.Epoch, "heir", released.Add(asked), testLease); err != nil {
		t.Fatalf("heir's claim after the host's known wait = %v", err)
	}
}

// TestLeaseSurvivesRestart: a reopened database still knows the live
// lease and refuses a second grant.
func TestLeaseSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "channels.db")
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := twoTasks(t, d, "h.example", "h.example")
	grantSend(t, d, a.ID, t0, true)
	if _, err := d.Claim(a.ID, 1, "p1", t0, testLease); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d = openDB(t, path, Options{})
	grantSend(t, d, b.ID, t0.Add(testLease.Hold), false)
	if _, err := d.Claim(a.ID, 1, "p2", t0.Add(time.Minute), testLease); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("claim after restart = %v", err)
	}
}

// TestSpotCheckLease: a spot-check shares its host's lease with the
// host's rounds, belongs to no round, and a peer it must avoid cannot
// claim it: the check ends as misrouted and the host is free again.
func TestSpotCheckLease(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	recs := issueOn(t, d, "a.example", "a.example", 1, t0)
	g := grantSend(t, d, recs[0].ID, t0, true)
	if _, err := d.Claim(recs[0].ID, g.Epoch, "crawler", t0, testLease); err != nil {
		t.Fatal(err)
	}
	chk := Task{ID: "check/1", Channel: "a.example", Issued: t0, Deadline: t0.Add(time.Hour), Spec: []byte("{}"),
		Host: "a.example", Checks: recs[0].ID, Avoid: []string{"crawler"}}
	if err := d.IssueCheck(chk); err != nil {
		t.Fatal(err)
	}
	// The round's lease is live: the check waits for it.
	grantSend(t, d, chk.ID, t0, false)
	if _, err := d.Complete(recs[0].ID, "crawler", Feedback{}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute + testLease.Gap)
	cg := grantSend(t, d, chk.ID, at, true)
	_, err := d.Claim(chk.ID, cg.Epoch, "crawler", at, testLease)
	if !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("the checked crawler claimed its own spot-check: %v", err)
	}
	got, _ := d.Task(chk.ID)
	if got.State != TaskCancelled || !got.Misrouted || got.Reason != ReasonMisrouted {
		t.Fatalf("misrouted check %+v", got)
	}
	// The host is free for the next check or round, and the channel's
	// round was not touched by the check.
	next := Task{ID: "check/2", Channel: "a.example", Issued: at, Deadline: at.Add(time.Hour), Spec: []byte("{}"),
		Host: "a.example", Checks: recs[0].ID, Avoid: []string{"crawler"}}
	if err := d.IssueCheck(next); err != nil {
		t.Fatal(err)
	}
	ng := grantSend(t, d, next.ID, at.Add(testLease.Gap), true)
	if _, err := d.Claim(next.ID, ng.Epoch, "checker", at.Add(testLease.Gap), testLease); err != nil {
		t.Fatalf("another peer's claim: %v", err)
	}
	if out, err := d.Complete(next.ID, "checker", Feedback{}, at.Add(time.Minute)); err != nil || !out.First || out.RoundDone {
		t.Fatalf("check result: %+v, %v", out, err)
	}
	c, _ := d.Get("a.example")
	if c.Round != 1 || c.Updates != 1 || c.Failures != 0 {
		t.Fatalf("channel after its checks: round %d, %d updates, %d failures", c.Round, c.Updates, c.Failures)
	}
}

// TestRegrantFencesOutCutShortSend: a task whose sending a stop cut short
// is granted again under a new epoch, unless it was claimed; a copy of the
// old grant can then neither claim the host nor cancel the task.
func TestRegrantFencesOutCutShortSend(t *testing.T) {
	d := openDB(t, "", Options{})
	a, b := twoTasks(t, d, "a.example", "b.example")
	cutShort := func(id string) Task {
		g, ok, err := d.Grant(id, t0, testLease)
		if err != nil || !ok {
			t.Fatalf("grant %s: %v, %v", id, ok, err)
		}
		if err := d.Signed(id, []byte("env")); err != nil {
			t.Fatal(err)
		}
		return g
	}
	ga, gb := cutShort(a.ID), cutShort(b.ID)

	// Being sent: Grant refuses it (another manager may be sending it).
	if _, _, err := d.Grant(a.ID, t0, testLease); !errors.Is(err, ErrNotGrantable) {
		t.Fatalf("Grant of a task being sent = %v; want ErrNotGrantable", err)
	}
	now := t0.Add(time.Minute)
	ra, ok, err := d.Regrant(a.ID, now, testLease)
	if err != nil || !ok || ra.Epoch != ga.Epoch+1 || ra.Sending || ra.Holder != "" {
		t.Fatalf("Regrant = %+v, %v, %v; want the next epoch, not being sent", ra, ok, err)
	}
	if _, err := d.Claim(a.ID, ga.Epoch, "p-old", now, testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("claim under the old epoch = %v; want ErrLeaseOver", err)
	}
	if _, ok, err := d.Cancel(a.ID, ga.Epoch, "p-old", "refused", now); err != nil || ok {
		t.Fatalf("cancel under the old epoch = ok %v, %v; want nothing changed", ok, err)
	}
	if _, err := d.Claim(a.ID, ra.Epoch, "p-new", now, testLease); err != nil {
		t.Fatalf("claim under the new epoch: %v", err)
	}

	// Claimed meanwhile: it was delivered, and is not granted again.
	if _, err := d.Claim(b.ID, gb.Epoch, "p1", now, testLease); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Regrant(b.ID, now, testLease); !errors.Is(err, ErrNotGrantable) {
		t.Fatalf("Regrant of a claimed task = %v; want ErrNotGrantable", err)
	}
	if _, ok, err := d.Cancel(b.ID, gb.Epoch, "p1", "refused", now); err != nil || !ok {
		t.Fatalf("the holder's cancel = ok %v, %v; want the task cancelled", ok, err)
	}
}

// TestClaimOutlivesAFailedSend: a send can be told it failed after the
// overlay delivered the task (an answer lost on the way back, a retry
// refused as seen before) and a crawler claimed it. The claim proves
// delivery: neither the task nor another of its host is granted while
// the claimed lease may be live, and once it has lapsed the host is free.
func TestClaimOutlivesAFailedSend(t *testing.T) {
	d := openDB(t, "", Options{})
	a, b := twoTasks(t, d, "h.example", "h.example")
	ga, ok, err := d.Grant(a.ID, t0, testLease)
	if err != nil || !ok {
		t.Fatalf("grant a: %v, %v", ok, err)
	}
	if err := d.Signed(a.ID, []byte("env")); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	if _, err := d.Claim(a.ID, ga.Epoch, "crawler-1", now, testLease); err != nil {
		t.Fatal(err)
	}
	if err := d.MarkSending(a.ID, false); err != nil { // the send was told it failed
		t.Fatal(err)
	}
	if got, _ := d.Task(a.ID); !got.Sent {
		t.Fatalf("claimed task %+v not marked sent", got)
	}

	now = now.Add(5 * time.Second)
	if g, ok, err := d.Grant(a.ID, now, testLease); ok || !errors.Is(err, ErrNotGrantable) {
		t.Fatalf("Grant of the claimed task = epoch %d, %v, %v; want ErrNotGrantable", g.Epoch, ok, err)
	}
	if g, ok, err := d.Grant(b.ID, now, testLease); ok || err != nil {
		t.Fatalf("Grant of another task of the host = epoch %d, %v, %v; want busy", g.Epoch, ok, err)
	}
	if _, err := d.Renew(a.ID, ga.Epoch, "crawler-1", Progress{Pages: 1}, now, testLease); err != nil {
		t.Fatalf("the holder's renewal: %v", err)
	}

	// The holder vanishes: its lease lapses at Expires + skew, and the
	// host is free after the politeness gap.
	lapsed := now.Add(testLease.Hold + testLease.Skew + testLease.Gap + time.Second)
	gb, ok, err := d.Grant(b.ID, lapsed, testLease)
	if err != nil || !ok || gb.Epoch != ga.Epoch+1 {
		t.Fatalf("Grant of b after a's lease lapsed = epoch %d, %v, %v; want epoch %d", gb.Epoch, ok, err, ga.Epoch+1)
	}
}

// TestRenewFencedByNewerGrant: a renewal of a lease that is no longer its
// host's newest is refused, as a claim is, so a holder whose host passed
// to another task stops at its next renewal.
func TestRenewFencedByNewerGrant(t *testing.T) {
	d := openDB(t, "", Options{})
	if _, err := d.AddSeeds([]string{"http://a.example/"}, t0); err != nil {
		t.Fatal(err)
	}
	chs, _ := d.All(0)
	a := issueOn(t, d, chs[0].ID, "h.example", 1, t0)[0]
	ga, ok, err := d.Grant(a.ID, t0, testLease)
	if err != nil || !ok {
		t.Fatalf("grant a: %v, %v", ok, err)
	}
	if _, err := d.Claim(a.ID, ga.Epoch, "crawler-1", t0, testLease); err != nil {
		t.Fatal(err)
	}
	// The host's record passes to another task, as a second manager
	// sharing the database could make it.
	if err := d.db.Update(func(tx kv.Tx) error {
		return putJSON(tx.Bucket(bucketHosts), []byte("h.example"), &hostLease{Epoch: ga.Epoch + 1, Task: "other"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Renew(a.ID, ga.Epoch, "crawler-1", Progress{Pages: 2}, t0.Add(time.Second), testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("renewal after the host passed on = %v; want ErrLeaseOver", err)
	}
}

// TestHostAsksHoldNextLease: what a host asked of its crawler (a
// Crawl-delay longer than the operator's wait, a Retry-After) holds the
// host's next lease, whichever crawler gets it; a volunteer's word holds
// it no longer than MaxHostWait and MaxHostRest. A robots.txt refusing
// the crawl's purpose holds it for task.RefusalRest.
func TestHostAsksHoldNextLease(t *testing.T) {
	for _, tc := range []struct {
		name string
		fb   func(now time.Time) Feedback
		free time.Duration // after the result, when the next lease may be granted
	}{
		{"crawl-delay", func(time.Time) Feedback { return Feedback{HostWait: 10 * time.Second} }, 10 * time.Second},
		{"crawl-delay longer than a task waits", func(time.Time) Feedback { return Feedback{HostWait: time.Hour} }, time.Hour},
		{"crawl-delay beyond the bound", func(time.Time) Feedback { return Feedback{HostWait: 48 * time.Hour} }, MaxHostWait},
		{"retry-after", func(now time.Time) Feedback { return Feedback{HostRest: now.Add(20 * time.Minute)} }, 20 * time.Minute},
		{"retry-after beyond the bound", func(now time.Time) Feedback { return Feedback{HostRest: now.Add(48 * time.Hour)} }, MaxHostRest},
		{"refused for the whole host", func(time.Time) Feedback {
			return Feedback{Refused: "robots.txt Content-Signal: search=n"}
		}, task.RefusalRest},
		{"nothing asked", func(time.Time) Feedback { return Feedback{} }, testLease.Gap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openDB(t, "", Options{})
			a, b := twoTasks(t, d, "h.example", "h.example")
			ga := grantSend(t, d, a.ID, t0, true)
			if _, err := d.Claim(a.ID, ga.Epoch, "p1", t0, testLease); err != nil {
				t.Fatal(err)
			}
			done := t0.Add(time.Minute)
			if _, err := d.Complete(a.ID, "p1", tc.fb(done), done); err != nil {
				t.Fatal(err)
			}
			grantSend(t, d, b.ID, done.Add(tc.free-time.Millisecond), false)
			grantSend(t, d, b.ID, done.Add(tc.free), true)
		})
	}
}

// hostTask adds host's channel, with maxPages when not 0, and grants and
// sends its first task at t0.
func hostTask(t *testing.T, d *DB, host string, maxPages int) Task {
	t.Helper()
	if _, err := d.AddSeeds([]string{"http://" + host + "/"}, t0); err != nil {
		t.Fatal(err)
	}
	if maxPages > 0 {
		if _, err := d.Set(host, Settings{MaxPages: &maxPages}); err != nil {
			t.Fatal(err)
		}
	}
	a := issueOn(t, d, host, host, 1, t0)[0]
	return grantSend(t, d, a.ID, t0, true)
}

// TestStalledLeaseEnds: a holder whose crawl stops moving keeps its
// lease one hold, or longer by the wait its host asked for (up to
// StallWait), and no longer: the renewal is refused, the lease ends at
// once, and the host is free for its next task after the skew allowance.
// Progress is more pages or more requests, and a restart's requests
// count again from 0.
func TestStalledLeaseEnds(t *testing.T) {
	tests := []struct {
		name string
		wait time.Duration // the wait every renewal shows
		// allowed is how long the crawl may stand still.
		allowed time.Duration
	}{
		{"no wait asked", 0, testLease.Hold},
		{"Crawl-delay of 3 minutes", 3 * time.Minute, testLease.Hold + 3*time.Minute},
		{"a day asked, StallWait honoured", 24 * time.Hour, testLease.Hold + StallWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDB(t, "", Options{})
			a := hostTask(t, d, "h.example", 0)
			claimed := t0.Add(time.Minute)
			if _, err := d.Claim(a.ID, 1, "squatter", claimed, testLease); err != nil {
				t.Fatal(err)
			}
			// Renewals a third of a hold apart show the same progress.
			var refused time.Time
			for at := claimed.Add(testLease.Hold / 3); at.Before(claimed.Add(time.Hour)); at = at.Add(testLease.Hold / 3) {
				_, err := d.Renew(a.ID, 1, "squatter", Progress{Wait: tt.wait}, at, testLease)
				if err != nil {
					if !errors.Is(err, ErrStalled) || !errors.Is(err, ErrLeaseOver) {
						t.Fatalf("renewal at +%v = %v, want ErrStalled", at.Sub(claimed), err)
					}
					refused = at
					break
				}
			}
			if still := refused.Sub(claimed); still <= tt.allowed || still > tt.allowed+testLease.Hold/3 {
				t.Fatalf("refused after %v standing still, want the first renewal past %v", still, tt.allowed)
			}
			if _, err := d.Renew(a.ID, 1, "squatter", Progress{Pages: 9}, refused, testLease); !errors.Is(err, ErrLeaseOver) {
				t.Fatalf("renewal after the refusal = %v, want ErrLeaseOver", err)
			}
			lost, err := d.Expire(refused.Add(testLease.Skew+time.Second), testLease.Skew)
			if err != nil || len(lost) != 1 || !lost[0].Task.Stalled || lost[0].Task.Holder != "squatter" {
				t.Fatalf("Expire = %+v, %v; want the stalled task lost", lost, err)
			}
			b := issueOn(t, d, "h.example", "h.example", 2, refused)
			grantSend(t, d, b[0].ID, refused.Add(testLease.Skew+time.Second+testLease.Gap), true)
		})
	}

	t.Run("moving", func(t *testing.T) {
		d := openDB(t, "", Options{})
		a := hostTask(t, d, "h.example", 0)
		if _, err := d.Claim(a.ID, 1, "p1", t0, testLease); err != nil {
			t.Fatal(err)
		}
		// Requests alone move it (robots.txt, sitemaps, a Retry-After's
		// retries); so do pages after a restart counted requests afresh.
		steps := []struct {
			at time.Duration
			p  Progress
		}{
			{4 * time.Minute, Progress{Requests: 3}},
			{8 * time.Minute, Progress{Requests: 5}},
			{12 * time.Minute, Progress{Pages: 1, Requests: 9}},
		}
		for _, s := range steps {
			if _, err := d.Renew(a.ID, 1, "p1", s.p, t0.Add(s.at), testLease); err != nil {
				t.Fatalf("renewal at +%v showing %+v: %v", s.at, s.p, err)
			}
		}
		restart := t0.Add(13 * time.Minute)
		if _, err := d.Claim(a.ID, 1, "p1", restart, testLease); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Renew(a.ID, 1, "p1", Progress{Pages: 1, Requests: 2}, restart.Add(4*time.Minute), testLease); err != nil {
			t.Fatalf("first renewal after a restart, requests counted afresh: %v", err)
		}
		// A claim again does not move a crawl that stood still since.
		if _, err := d.Claim(a.ID, 1, "p1", restart.Add(8*time.Minute), testLease); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Renew(a.ID, 1, "p1", Progress{Pages: 1}, restart.Add(9*time.Minute+time.Second), testLease); !errors.Is(err, ErrStalled) {
			t.Fatalf("renewal 5 min after the last move, a claim between = %v, want ErrStalled", err)
		}
	})
}

// TestLeaseHeldAtMostItsNeed: a lease whose crawl shows progress at every
// renewal (a liar can) still ends when its task has had all the time it
// can need: every page after the politeness wait and PageTime, and one
// hold. No renewal reaches past it, and a claim after it is refused.
func TestLeaseHeldAtMostItsNeed(t *testing.T) {
	d := openDB(t, "", Options{})
	a := hostTask(t, d, "h.example", 20)
	if a.PageCap != 20 {
		t.Fatalf("page cap %d, want the channel's 20", a.PageCap)
	}
	need := testLease.Hold + 20*(testLease.Gap+PageTime) // 7 min
	g, err := d.Claim(a.ID, 1, "liar", t0, testLease)
	if err != nil || !g.HoldUntil.Equal(t0.Add(need)) {
		t.Fatalf("claim = %+v, %v; want it held until %v", g, err, t0.Add(need))
	}
	var at time.Time
	for i := 1; ; i++ {
		at = t0.Add(time.Duration(i) * 100 * time.Second)
		r, err := d.Renew(a.ID, 1, "liar", Progress{Pages: i}, at, testLease)
		if err != nil {
			if !errors.Is(err, ErrLeaseOver) || errors.Is(err, ErrStalled) {
				t.Fatalf("renewal at +%v = %v, want the lease over", at.Sub(t0), err)
			}
			break
		}
		if r.Expires.After(t0.Add(need)) {
			t.Fatalf("renewal at +%v runs to %v, past the task's need", at.Sub(t0), r.Expires.Sub(t0))
		}
	}
	if at.Before(t0.Add(need)) || at.After(t0.Add(need+100*time.Second)) {
		t.Fatalf("refused at +%v, want the first renewal from +%v", at.Sub(t0), need)
	}
	if _, err := d.Claim(a.ID, 1, "liar", at, testLease); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("claim past the task's need = %v, want ErrLeaseOver", err)
	}
	if lost, err := d.Expire(at.Add(testLease.Skew+time.Second), testLease.Skew); err != nil || len(lost) != 1 {
		t.Fatalf("Expire = %+v, %v; want the task lost", lost, err)
	}
}

// TestLapsedPeerKeptOff: a holder that let a host's lease lapse without a
// result is not granted the host's next lease for LapseMemory; another
// peer is, and so is the lapsed peer once that has passed. A holder that
// released the task for an heir let nothing lapse.
func TestLapsedPeerKeptOff(t *testing.T) {
	d := openDB(t, "", Options{})
	a := hostTask(t, d, "h.example", 0)
	if _, err := d.Claim(a.ID, 1, "squatter", t0, testLease); err != nil {
		t.Fatal(err)
	}
	lapsed := t0.Add(testLease.Hold + testLease.Skew + time.Second)
	if lost, err := d.Expire(lapsed, testLease.Skew); err != nil || len(lost) != 1 {
		t.Fatalf("Expire = %+v, %v", lost, err)
	}
	if p, err := d.Lapsed("h.example", lapsed); err != nil || p != "squatter" {
		t.Fatalf("Lapsed = %q, %v; want the squatter", p, err)
	}
	claimNext := func(round int, at time.Time, peer string) error {
		t.Helper()
		b := issueOn(t, d, "h.example", "h.example", round, at)[0]
		g := grantSend(t, d, b.ID, at, true)
		_, err := d.Claim(b.ID, g.Epoch, peer, at, testLease)
		return err
	}
	if err := claimNext(2, lapsed.Add(time.Minute), "squatter"); !errors.Is(err, ErrLeaseOver) {
		t.Fatalf("the lapsed peer's claim of the next task = %v, want ErrLeaseOver", err)
	}
	d2 := openDB(t, "", Options{})
	b := hostTask(t, d2, "h.example", 0)
	if _, err := d2.Claim(b.ID, 1, "leaver", t0, testLease); err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Release(b.ID, 1, "leaver", 0, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if lost, err := d2.Expire(t0.Add(testLease.StartWithin+testLease.Skew+time.Second), testLease.Skew); err != nil || len(lost) != 1 {
		t.Fatalf("Expire = %+v, %v", lost, err)
	}
	if p, _ := d2.Lapsed("h.example", t0.Add(time.Hour)); p != "" {
		t.Fatalf("a released lease counted as lapsed by %q", p)
	}

	// Another peer takes the host; a day later the lapsed peer may again.
	d3 := openDB(t, "", Options{})
	c := hostTask(t, d3, "h.example", 0)
	if _, err := d3.Claim(c.ID, 1, "squatter", t0, testLease); err != nil {
		t.Fatal(err)
	}
	if _, err := d3.Expire(lapsed, testLease.Skew); err != nil {
		t.Fatal(err)
	}
	n := issueOn(t, d3, "h.example", "h.example", 2, lapsed)[0]
	g := grantSend(t, d3, n.ID, lapsed.Add(time.Minute), true)
	if _, err := d3.Claim(n.ID, g.Epoch, "other", lapsed.Add(time.Minute), testLease); err != nil {
		t.Fatalf("another peer's claim: %v", err)
	}
	if p, _ := d3.Lapsed("h.example", lapsed.Add(LapseMemory)); p != "" {
		t.Fatalf("the squatter is still kept off a day later (%q)", p)
	}
}

// TestLeaseFromBeforeMovesCounted: a lease claimed from a manager that
// did not yet count a crawl's moves (its record has no MovedAt) is not
// taken for stalled at its first renewal after the upgrade: counting
// starts there.
func TestLeaseFromBeforeMovesCounted(t *testing.T) {
	d := openDB(t, "", Options{})
	a := hostTask(t, d, "h.example", 0)
	if _, err := d.Claim(a.ID, 1, "p1", t0, testLease); err != nil {
		t.Fatal(err)
	}
	if err := d.db.Update(func(tx kv.Tx) error {
		var rec Task
		if _, err := getJSON(tx.Bucket(bucketTasks), []byte(a.ID), &rec); err != nil {
			return err
		}
		rec.MovedAt, rec.HoldUntil = time.Time{}, time.Time{}
		return putJSON(tx.Bucket(bucketTasks), []byte(a.ID), &rec)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Renew(a.ID, 1, "p1", Progress{}, t0.Add(4*time.Minute), testLease); err != nil {
		t.Fatalf("first renewal after the upgrade: %v", err)
	}
	if _, err := d.Renew(a.ID, 1, "p1", Progress{}, t0.Add(8*time.Minute), testLease); err != nil {
		t.Fatalf("renewal 4 minutes after counting began: %v", err)
	}
	if _, err := d.Renew(a.ID, 1, "p1", Progress{}, t0.Add(9*time.Minute+time.Second), testLease); !errors.Is(err, ErrStalled) {
		t.Fatalf("renewal 5 minutes after counting began = %v, want ErrStalled", err)
	}
}
