package swarm

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// The manager's recrawl interval before any change was seen, and the slack
// added to a task's deadline, in the churn test.
const (
	prior = 30 * time.Second
	slack = 10 * time.Second
	// politeness is the operator's wait between requests to one host;
	// lease is how long a claim lasts unrenewed, short so that lapsed
	// leases of killed clients are re-issued within the test.
	politeness = 100 * time.Millisecond
	leaseHold  = 20 * time.Second
)

// churnSize returns the sizes (12 clients, 60 hosts), or smaller
// ones from HIVECRAWL_CHURN_PEERS and HIVECRAWL_CHURN_HOSTS.
func churnSize() (peers, hosts int) {
	peers, hosts = 12, 60
	if n, err := strconv.Atoi(os.Getenv("HIVECRAWL_CHURN_PEERS")); err == nil && n >= 12 {
		peers = n
	}
	if n, err := strconv.Atoi(os.Getenv("HIVECRAWL_CHURN_HOSTS")); err == nil && n > 0 {
		hosts = n
	}
	return peers, hosts
}

// TestChurn is the end-to-end churn test: a manager, 12 clients and 60
// web hosts as processes; once a first result is stored, 4 clients are
// killed, 4 stopped gracefully, 4 of those 8 restarted, and the manager is
// killed and restarted. Then every channel must be crawled, no task
// stranded, the zones must tile the space, no host may have seen two
// crawlers at once, and credits must add up.
func TestChurn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a swarm of processes")
	}
	peers, hosts := churnSize()
	s := startSwarm(t, Config{
		Peers: peers, Hosts: hosts, Seed: 8,
		Web: fixture.DemoOptions{MaxPages: 40},
		// Short rounds, so a task lost in a crash is re-issued within the
		// test: counted lost after 2 × 30 s + 10 s.
		// Hosts of more than 15 pages go in pieces, crawled one after
		// another under the host's one lease.
		ManagerArgs: []string{"--coordinates", "--prior", prior.String(), "--slack", slack.String(),
			"--delay", politeness.String(), "--lease-hold", leaseHold.String(), "--clock-skew", "2s",
			"--start-within", "1m", "--piece-above", "15"},
		Client: func(c *config.Config) { c.Delay = config.Duration(time.Millisecond) }, // tries to crawl faster: the operator's wait holds
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// Churn starts as soon as a first result is stored, whether or not
	// the overlay has settled: zones are the manager's, and no peer
	// waits for another to agree on them.
	peerOf := map[*Client]string{}
	for _, c := range s.Clients {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		peerOf[c] = st.Overlay.Peer
	}
	// Churn while clients crawl, so that crashes lose running tasks.
	if err := poll(ctx, 500*time.Millisecond, func() (bool, error) {
		st, err := s.Manager.Status(ctx)
		return err == nil && st.Stored.Pages > 0, nil
	}); err != nil {
		t.Fatalf("nothing stored before the churn: %v", err)
	}

	// Churn: SIGKILL 0–3, stop 4–7 gracefully, restart 0, 1, 4, 5; kill
	// and restart the manager.
	for _, c := range s.Clients[0:4] {
		if err := c.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range s.Clients[4:8] {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := c.Stop(sctx); err != nil {
			t.Logf("graceful stop: %v", err)
		}
		cancel()
	}
	if err := s.Manager.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.Manager.Start(ctx); err != nil {
		t.Fatal(err)
	}
	up := []*Client{s.Clients[0], s.Clients[1], s.Clients[4], s.Clients[5]}
	for _, c := range up {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	running := append(up, s.Clients[8:]...)
	t.Logf("overlay settled %v after the restarts", waitSettled(ctx, t, running))
	churned := time.Now()
	// A task lost in the churn counts lost at its deadline, 2 × prior +
	// slack after it was issued, and is issued again at the manager's next
	// tick: every task issued before reissued re-executes one lost.
	reissued := churned.Add(2*prior + slack + 10*time.Second)

	// Wait until every host has served pages and every task issued before
	// reissued has ended (none is older than that), or the test's time is
	// up. Rounds keep starting meanwhile; those stay open and are checked
	// for being in time, not stranded.
	var (
		last   error
		logged time.Time
	)
	wctx, wcancel := context.WithTimeout(ctx, 150*time.Second)
	defer wcancel()
	err := poll(wctx, time.Second, func() (bool, error) {
		st, err := s.Manager.Status(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		var served int
		web, err := s.Web.Stats(ctx, s.http)
		if err != nil {
			last = err
			return false, nil
		}
		for _, h := range web {
			if h.Pages > 0 {
				served++
			}
		}
		last = nil
		if time.Now().Before(reissued) || st.OldestOpen != nil && !st.OldestOpen.After(reissued) || served < hosts {
			// Every 10 s: a failure's own lines must not drown in these.
			if time.Since(logged) >= 10*time.Second {
				logged = time.Now()
				t.Logf("waiting: %d tasks open (oldest %v), %d of %d hosts served pages, %d pages stored",
					st.Tasks["open"], st.OldestOpen, served, hosts, st.Stored.Pages)
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("the swarm did not finish the crawl: %v (last error: %v)", err, last)
	}

	// Checks get their own time.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Zones of the running clients still tile the space: at once, or
	// within a few heartbeats when a peer whose coordinate drifted is
	// moving its zone (it is briefly not a member).
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	if took, first, err := settle(sctx, running); err != nil {
		t.Errorf("the overlay is not settled at the end: %v", err)
	} else if first != nil {
		t.Logf("the overlay settled %v after the crawl ended; at first: %v", took, first)
	}
	scancel()

	// Stop the clients before reading storage's credits, so that no upload
	// lands between that and reading their ledgers.
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if err := s.StopClients(cctx); err != nil {
		t.Logf("stop the clients: %v", err)
	}
	st, err := s.Manager.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	web, err := s.Web.Stats(ctx, s.http)
	if err != nil {
		t.Fatal(err)
	}
	// What Hivecrawl promises every site, from the site's side: one
	// connection, one request at a time, and the operator's wait between
	// request starts, whoever crawls it, across churn, pieces and leases.
	worst := fixture.WorstOf(web)
	t.Logf("politeness: max in flight %d (%s), max conns %d (%s), min gap %v (%s: %s); tasks %v",
		worst.MaxInFlight, worst.MaxInFlightHost, worst.MaxConns, worst.MaxConnsHost,
		worst.MinGap, worst.MinGapHost, worst.MinGapAt, st.Tasks)
	checkPolite(t, web, politeness)
	if err := s.Close(cctx); err != nil {
		t.Logf("close: %v", err)
	}
	closed := time.Now()
	rep, err := s.Manager.ReadChannels()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Channels); n < hosts {
		t.Errorf("%d channels, want at least one per host (%d)", n, hosts)
	}
	pieced := 0
	for _, c := range rep.Channels {
		if len(c.Pieces) > 1 {
			pieced++
		}
	}
	t.Logf("%d of %d channels were crawled in pieces, one piece after another", pieced, len(rep.Channels))
	for _, c := range rep.Channels {
		switch {
		case c.Updates == 0:
			t.Errorf("channel %s was never crawled (%d submitted, %d failures)", c.ID, c.Submitted, c.Failures)
		case len(c.Pages) == 0:
			t.Errorf("channel %s has no stored pages", c.ID)
		case c.LastUpdate.Before(churned):
			// Also the channels whose task was lost in the churn.
			t.Errorf("channel %s was not crawled after the churn (last result %v, %d failures)", c.ID, c.LastUpdate, c.Failures)
		}
	}
	// Tasks still open are rounds started late in the test, within their
	// deadline: none was stranded.
	for _, task := range rep.Open {
		if task.Checks != "" {
			// A spot-check waits for its host's lease behind the rounds;
			// lost, it is issued again (manager/storage).
			t.Logf("spot-check %s of %s open at the end (issued %v)", task.ID, task.Checks, task.Issued)
			continue
		}
		if !task.Issued.After(reissued) || task.Deadline.Before(closed) {
			t.Errorf("task %s stranded: open, issued %v, deadline %v, swarm closed %v", task.ID, task.Issued, task.Deadline, closed)
		}
	}
	t.Logf("tasks by state: %v, cancelled by reason: %v", rep.Tasks, rep.Cancelled)

	checkCredits(t, s, peerOf)
}

// waitSettled waits until every client is a member of the overlay and
// their zones tile the space, and returns how long that took.
func waitSettled(ctx context.Context, t *testing.T, cs []*Client) time.Duration {
	t.Helper()
	took, _, err := settle(ctx, cs)
	if err != nil {
		t.Fatalf("the overlay did not settle: %v", err)
	}
	return took
}

// settle polls until every client is a member and the zones tile the
// space. It returns how long that took and, when it did not hold at once,
// what was wrong at first; or, when ctx ends first, what still was.
func settle(ctx context.Context, cs []*Client) (took time.Duration, first, err error) {
	start := time.Now()
	var last error
	err = poll(ctx, 500*time.Millisecond, func() (bool, error) {
		e := overlayError(ctx, cs)
		if e != nil && ctx.Err() != nil {
			return false, nil // cut short by the deadline: keep what was wrong before
		}
		if last = e; first == nil {
			first = last
		}
		return last == nil, nil
	})
	if err != nil {
		return 0, first, fmt.Errorf("%w (last: %v)", err, last)
	}
	return time.Since(start), first, nil
}

// overlayError says what keeps the clients' overlay from being settled:
// a client not a member, zones that do not tile the space, or two clients
// whose zones abut and one does not list the other.
func overlayError(ctx context.Context, cs []*Client) error {
	var (
		zones []localapi.Zone
		sts   []*localapi.Overlay
		names []string
	)
	for _, c := range cs {
		// A status that does not come is what is wrong, not a wait
		// until the test's deadline.
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		st, err := c.Status(sctx)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		if st.Overlay == nil || !st.Overlay.Member {
			return fmt.Errorf("%s is not a member", c.Name)
		}
		zones = append(zones, st.Overlay.Zones...)
		sts, names = append(sts, st.Overlay), append(names, c.Name)
	}
	if err := TilingError(zones); err != nil {
		return fmt.Errorf("zones of the %d clients do not tile the space: %w", len(cs), err)
	}
	return UnlistedError(sts, names)
}

// checkCredits checks the stopped clients' ledgers against what the
// stopped manager's storage credited them (st, read after the clients
// stopped): each client's credits equal the sum of its receipts; its
// receipts, plus those of results storage accepted but the client had not
// kept when it crashed or stopped (it keeps them at its next start),
// equal what storage credited it; and all of it adds up to storage's sum.
// peerOf names each client's peer.
func checkCredits(t *testing.T, s *Swarm, peerOf map[*Client]string) {
	t.Helper()
	contrib, err := s.Manager.ReadContributors()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]float64{}
	var storedSum float64
	for _, c := range contrib {
		stored[c.Peer] = c.Credits
		storedSum += c.Credits
	}
	var unfinished []string
	for _, c := range s.Clients {
		ids, err := c.Unfinished()
		if err != nil {
			t.Fatal(err)
		}
		unfinished = append(unfinished, ids...)
	}
	receipts, err := s.Manager.ReadReceipts(unfinished)
	if err != nil {
		t.Fatal(err)
	}
	var clientSum float64
	for _, c := range s.Clients {
		l, err := c.ReadLedger()
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for peer, cr := range l.Receipts {
			sum += cr
			if peer != peerOf[c] {
				t.Errorf("%s (%s) holds receipts of %s worth %.3f", c.Name, peerOf[c], peer, cr)
			}
		}
		if math.Abs(sum-l.Credits) > 1e-6 {
			t.Errorf("%s: ledger total %.3f, receipts sum to %.3f", c.Name, l.Credits, sum)
		}
		var unkept float64
		for id, r := range receipts {
			if r.Peer == peerOf[c] && !l.Tasks[id] {
				unkept += r.Credits
			}
		}
		if unkept > 0 {
			t.Logf("%s: results worth %.3f credits stored, their receipts not yet kept", c.Name, unkept)
		}
		if held := l.Receipts[peerOf[c]] + unkept; math.Abs(held-stored[peerOf[c]]) > 1e-6 {
			t.Errorf("%s holds receipts worth %.3f (%.3f not yet kept), storage credited %.3f", c.Name, held, unkept, stored[peerOf[c]])
		}
		clientSum += l.Credits + unkept
	}
	if math.Abs(clientSum-storedSum) > 1e-6 {
		t.Errorf("clients hold %.3f credits, storage accepted %.3f", clientSum, storedSum)
	}
	t.Logf("credits %.3f over %d contributors", storedSum, len(contrib))
}

// checkPolite checks what Hivecrawl promises every site, from the site's
// side (the web's counts): one connection and one request at a time, and
// the operator's wait between request starts.
func checkPolite(t *testing.T, web map[string]fixture.Stats, politeness time.Duration) {
	t.Helper()
	for name, h := range web {
		if h.MaxInFlight > 1 || h.MaxConns > 1 {
			t.Errorf("host %s had %d requests and %d connections in use at once (%d requester IPs: %v)",
				name, h.MaxInFlight, h.MaxConns, h.MaxClients, h.Together)
		}
		if h.Gaps > 0 && h.MinGap < politeness {
			t.Errorf("host %s: requests %v apart, under the %v wait: %s", name, h.MinGap, politeness, h.MinGapAt)
		}
	}
}
