package app

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestNetworkSpotChecks runs a manager and 3 real peers over 6 hosts:
// every result of these new peers is spot-checked by another peer through
// the host's lease, found as uploaded, and its credit moves from pending
// to confirmed in the storage module and in the crawler's own ledger. A
// checker's credit is confirmed once a result of its own passes: a peer
// whose zone held none of the hosts keeps it pending.
func TestNetworkSpotChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 4 libp2p hosts and 6 web hosts")
	}
	seeds := serveSites(t, "checked", 6, 8)
	s := startSwarm(t, 3, time.Hour, manager.AssignCAN)
	s.waitMembers(t)
	if _, err := s.m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, "every channel crawled", func() bool { return allUpdated(t, s.m.Channels(), 1) })
	st := s.m.Storage()
	waitFor(t, 120*time.Second, "every result validated", func() bool {
		tot, err := st.Totals()
		if err != nil {
			t.Fatal(err)
		}
		return tot.Checked >= len(seeds) && tot.Passed+tot.Failed == tot.Checked
	})
	tot, _ := st.Totals()
	if tot.Failed != 0 || tot.Unchecked != 0 {
		t.Errorf("honest results: %d failed validation, %d went unchecked (new peers' results are all checked)", tot.Failed, tot.Unchecked)
	}
	vs, err := st.Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if len(v.Checkers) == 0 || slices.Contains(v.Checkers, v.Peer) {
			t.Errorf("result of %s checked by %v: want another peer", v.Task, v.Checkers)
		}
	}
	// Each crawler's ledger learns it. A checker is paid once a result of
	// its own passes (storage's deferTx): a peer whose zone held none of
	// the hosts keeps its checks' credit pending, and nothing else.
	passed := map[string]bool{}
	for _, v := range vs {
		passed[v.Peer] = passed[v.Peer] || v.Verdict == storage.VerdictValid
	}
	ids := make([]string, len(s.clients))
	for i, c := range s.clients {
		sts, err := c.Status(context.Background())
		if err != nil || sts.Overlay == nil {
			t.Fatalf("client %d: no overlay status (%v)", i, err)
		}
		ids[i] = sts.Overlay.Peer
	}
	// waiting lists what still waits in client i's ledger; a check of a
	// peer without a passed result waits by design, if storage holds it
	// pending too.
	waiting := func(i int) (left, deferred []string) {
		pending, err := s.clients[i].ledger.Pending(100)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range pending {
			rc, _, err := st.Receipt(id)
			if err != nil {
				t.Fatal(err)
			}
			if !passed[ids[i]] && strings.HasPrefix(id, "check/") && rc.State == task.CreditPending {
				deferred = append(deferred, id)
				continue
			}
			left = append(left, fmt.Sprintf("%s (storage: %s %q)", id, rc.State, rc.Reason))
		}
		return left, deferred
	}
	settled := func() bool {
		for i := range s.clients {
			if left, _ := waiting(i); len(left) > 0 {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(30 * time.Second); !settled(); time.Sleep(100 * time.Millisecond) {
		if time.Now().Before(deadline) {
			continue
		}
		for i := range s.clients {
			left, _ := waiting(i)
			t.Logf("client %d (a result passed: %v): still pending %v", i, passed[ids[i]], left)
		}
		t.Fatal("gave up waiting for every ledger settled")
	}
	var confirmed float64
	unpaid := map[string]bool{}
	for i, c := range s.clients {
		sts, _ := c.Status(context.Background())
		if sts.Credits.Revoked != 0 {
			t.Errorf("client %d: %.2f credits revoked for honest work", i, sts.Credits.Revoked)
		}
		confirmed += sts.Credits.Confirmed
		_, deferred := waiting(i)
		if len(deferred) > 0 {
			unpaid[ids[i]] = true
			t.Logf("client %d crawled no host of its own: %d checks wait for a result of its to pass", i, len(deferred))
		}
		es, err := c.ledger.Entries(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Receipt.Settled() != task.CreditConfirmed && !slices.Contains(deferred, e.Receipt.TaskID) {
				t.Errorf("client %d: receipt of %s is %s", i, e.Receipt.TaskID, e.Receipt.Settled())
			}
		}
	}
	if confirmed == 0 {
		t.Error("no credit confirmed in any ledger")
	}
	var granted float64
	cs, _ := st.Contributors()
	for _, c := range cs {
		granted += c.Credits - c.Pending // the deferred checks' credit is not confirmed yet
		if (c.Pending != 0 && !unpaid[c.Peer]) || c.Revoked != 0 {
			t.Errorf("contributor %s: %.2f pending, %.2f revoked", c.Peer, c.Pending, c.Revoked)
		}
	}
	if !near(confirmed, granted) {
		t.Errorf("ledgers confirm %.2f credits, storage granted %.2f", confirmed, granted)
	}
	t.Logf("%d results checked, %d passed, %d pages re-fetched for checks; %.2f credits confirmed", tot.Checked, tot.Passed, tot.CheckFetches, confirmed)
}

// TestNetworkCatchesCheaters runs 5 real peers, one of them forging every
// result (invented pages), over 8 hosts or more, at least one of them the
// cheater's: none of its pages is served by the operator's index once its
// results are judged, it keeps no confirmed credit, and no honest result
// is rejected.
func TestNetworkCatchesCheaters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 6 libp2p hosts and 8 or more web hosts")
	}
	const cheater = 4
	s := startCheatingSwarm(t, 5, manager.Options{
		Schedule:  manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 3, MaxPerFeedback: -1}},
		Placement: manager.PlacementOptions{Assignment: manager.AssignHash}, // every peer gets hosts
	}, map[int]string{cheater: adversary.Invent})
	s.waitMembers(t)
	st := s.m.Storage()
	cheaterID := ""
	waitFor(t, 60*time.Second, "the cheater's peer ID", func() bool {
		sts, err := s.clients[cheater].Status(context.Background())
		if err == nil && sts.Overlay != nil {
			cheaterID = sts.Overlay.Peer
		}
		return cheaterID != ""
	})
	// Hosts go to peers by hashing: seeds are added four at a time until
	// there are eight and the cheater was sent one, or it might crawl none.
	for batch, toCheater := 0, false; batch < 2 || !toCheater; batch++ {
		if batch == 16 {
			t.Fatalf("none of %d hosts was sent to the cheater", 4*batch)
		}
		seeds := serveSites(t, fmt.Sprintf("cheated-%02d", batch), 4, 6)
		if _, err := s.m.AddSeeds(seeds); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 60*time.Second, "the new hosts' tasks sent", func() bool {
			latest, err := s.m.Channels().Latest()
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range seeds {
				u, _ := url.Parse(seed)
				tk, ok := latest[u.Host]
				if !ok || !tk.Sent {
					return false
				}
				toCheater = toCheater || tk.Owner == cheaterID
			}
			return true
		})
	}
	waitFor(t, 150*time.Second, "a judged result of the cheater and every result judged", func() bool {
		vs, err := st.Verdicts()
		if err != nil {
			t.Fatal(err)
		}
		judged := false
		for _, v := range vs {
			judged = judged || v.Peer == cheaterID
		}
		tot, _ := st.Totals()
		return judged && allUpdated(t, s.m.Channels(), 1) && tot.Passed+tot.Failed == tot.Checked
	})
	forged, err := adversary.ReadLog(s.clients[cheater].Dirs().Data)
	if err != nil || len(forged) == 0 {
		t.Fatalf("the cheater logged %d forged pages (%v)", len(forged), err)
	}
	for _, f := range forged {
		if e, found, _ := st.Lookup(f.URL); found && e.Task == f.Task {
			t.Errorf("forged page %s of %s is in the index", f.URL, f.Task)
		}
	}
	vs, _ := st.Verdicts()
	for _, v := range vs {
		if v.Verdict == storage.VerdictInvalid && v.Peer != cheaterID {
			t.Errorf("honest result %s of %s rejected: %s", v.Task, v.Peer, v.Reason)
		}
		if v.Verdict == storage.VerdictValid && v.Peer == cheaterID {
			t.Errorf("forged result %s passed: %s", v.Task, v.Reason)
		}
	}
	cs, _ := st.Contributors()
	for _, c := range cs {
		if c.Peer == cheaterID && c.Credits-c.Pending > 0 {
			t.Errorf("the cheater keeps %.2f confirmed credits", c.Credits-c.Pending)
		}
	}
	tot, _ := st.Totals()
	t.Logf("%d forged pages; %d results checked, %d passed, %d failed; %d pages re-fetched", len(forged), tot.Checked, tot.Passed, tot.Failed, tot.CheckFetches)
}
