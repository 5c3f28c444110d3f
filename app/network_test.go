package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/cheat"
)

// swarm is a manager and clients in one process, on 127.0.0.1.
type swarm struct {
	m       *manager.Manager
	clients []*Client
	// clientsCtx is the clients' context; cancelClients ends it,
	// cancelManager stops the manager; cancelClient[i] stops client i
	// alone.
	clientsCtx                   context.Context
	cancelClients, cancelManager context.CancelFunc
	cancelClient                 []context.CancelFunc
	clientsDone                  []chan error
	managerDone                  chan error
}

// startSwarm starts a manager with the given channel prior and
// assignment and n clients that joined its network.
func startSwarm(t *testing.T, n int, prior time.Duration, assignment string) *swarm {
	t.Helper()
	return startSwarmWith(t, n, manager.Options{
		Placement: manager.PlacementOptions{Assignment: assignment},
		Schedule:  manager.ScheduleOptions{Channels: channels.Options{Prior: prior, MaxDepth: 3, MaxPerFeedback: -1}},
	})
}

// startSwarmWith starts a manager with options mo (on 127.0.0.1, ticking
// every 300 ms, a 20 ms politeness wait) and n clients that joined its
// network.
func startSwarmWith(t *testing.T, n int, mo manager.Options) *swarm {
	t.Helper()
	return startCheatingSwarm(t, n, mo, nil)
}

// startCheatingSwarm is startSwarmWith where client i forges its
// uploads in mode cheats[i] (swarm/adversary), as the test kit's cheater
// does (testkit/cheat).
func startCheatingSwarm(t *testing.T, n int, mo manager.Options, cheats map[int]string) *swarm {
	t.Helper()
	return startTunedSwarm(t, n, mo, func(i int, o *Options) {
		mode := cheats[i]
		if mode == "" {
			return
		}
		o.Adversary = &Adversary{Uploads: func(honest taskmgr.Uploader, env AdversaryEnv) taskmgr.Uploader {
			return &cheat.Uploader{Mode: mode, Honest: honest, Dir: env.Dir, Manager: env.ManagerKey,
				Self: env.Host.ID().String(), Second: env.SecondIdentity}
		}}
	})
}

// startTunedSwarm is startSwarmWith where tune changes client i's
// options before it starts.
func startTunedSwarm(t *testing.T, n int, mo manager.Options, tune func(i int, o *Options)) *swarm {
	t.Helper()
	mctx, cancelManager := context.WithCancel(context.Background())
	ctx, cancelClients := context.WithCancel(context.Background())
	mo.Dir, mo.Listen, mo.AllowLoopback = t.TempDir(), []string{"/ip4/127.0.0.1/tcp/0"}, true
	mo.Schedule.Tick, mo.Logger, mo.Politeness.Delay = 300*time.Millisecond, quiet, 20*time.Millisecond
	// The fixture web serves every site on 127.0.0.1, as one server would:
	// the caps per address and domain (tested in manager/channels) would
	// crawl them two at a time.
	if mo.Politeness.PerIP == 0 && mo.Politeness.PerDomain == 0 {
		mo.Politeness.PerIP, mo.Politeness.PerDomain, mo.Politeness.IPWait = -1, -1, -1
	}
	mgr, err := manager.New(mctx, mo)
	if err != nil {
		t.Fatal(err)
	}
	s := &swarm{m: mgr, clientsCtx: ctx, cancelClients: cancelClients, cancelManager: cancelManager, managerDone: make(chan error, 1)}
	go func() { s.managerDone <- mgr.Serve(mctx) }()
	t.Cleanup(s.stop)
	for i := range n {
		s.addClient(t, i, tune)
	}
	return s
}

// addClient starts client i of the swarm, joined to its manager's
// network; tune, when set, changes its options first.
func (s *swarm) addClient(t *testing.T, i int, tune func(i int, o *Options)) {
	t.Helper()
	home := t.TempDir()
	quietConfig(t, home, `, "delay": "20ms", "threads": 2, "queue_length": 8, "nickname": "peer-`+fmt.Sprint(i)+`"`)
	if err := profile.Write(filepath.Join(home, "config", profile.FileName), mustProfile(t, s.m)); err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Home: home, AllowLoopback: true, Logger: quiet, SettleEvery: 500 * time.Millisecond,
		// The manager's storage module runs in this process: no DHT
		// (NetworkOptions.NoDHT says why).
		Network: NetworkOptions{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Heartbeat: 500 * time.Millisecond, NoDHT: true},
	}
	if tune != nil {
		tune(i, &opts)
	}
	c, err := New(s.clientsCtx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode() != ModeNetwork {
		t.Fatalf("client %d runs in %s mode with a profile stored, want network", i, c.Mode())
	}
	done := make(chan error, 1)
	cctx, cancel := context.WithCancel(s.clientsCtx)
	go func() { done <- c.Serve(cctx) }()
	s.cancelClient = append(s.cancelClient, cancel)
	s.clients = append(s.clients, c)
	s.clientsDone = append(s.clientsDone, done)
}

func mustProfile(t *testing.T, m *manager.Manager) *profile.Profile {
	t.Helper()
	p, err := m.WriteProfile()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stopClients stops every client gracefully and waits for them.
func (s *swarm) stopClients() {
	s.cancelClients()
	for _, d := range s.clientsDone {
		<-d
	}
	s.clientsDone = nil
}

// seedWeb adds every site of web to the manager as a seed.
func (s *swarm) seedWeb(t *testing.T, web *fixture.Web) {
	t.Helper()
	var seeds []string
	for _, st := range web.Sites() {
		seeds = append(seeds, web.URL(st.Name))
	}
	if _, err := s.m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
}

// stop stops the clients, then the manager.
func (s *swarm) stop() {
	s.stopClients()
	s.cancelManager()
	if s.managerDone != nil {
		<-s.managerDone
		s.managerDone = nil
	}
}

// TestNetworkCrawlsEveryChannel runs a manager and 8 real peers over a
// synthetic web of 40 hosts: every channel is crawled, its text lands in
// WARC files that read back, every receipt verifies with the network's
// key, each ledger's total is the sum of its receipts and all of them
// together are what storage granted, and the channels' change intervals
// follow the changes the crawls saw.
func TestNetworkCrawlsEveryChannel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 9 libp2p hosts and 40 web hosts")
	}
	sites := make([]fixture.Site, 40)
	for i := range sites {
		sites[i] = fixture.Site{Name: fmt.Sprintf("host-%02d.test", i), Pages: 6 + i%5, PageBytes: 3 << 10, ChangeShare: 1}
	}
	web, err := fixture.New(sites, fixture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Close() })

	const prior = 6 * time.Second
	s := startSwarm(t, 8, prior, manager.AssignCAN)
	s.waitMembers(t)
	s.seedWeb(t, web)
	db := s.m.Channels()
	waitCrawled(t, s.m, crawlWait, 1)

	// Change every host, so the next round's pages differ and the
	// channels' change estimates move away from the prior.
	for _, st := range sites {
		web.SetVersion(st.Name, 1)
	}
	waitCrawled(t, s.m, crawlWait, 2)
	all, err := db.All(0)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, c := range all {
		if c.ChangeInterval != prior {
			moved++
		}
	}
	if moved < len(all)/2 {
		t.Errorf("%d of %d channels have a change interval other than the prior after seeing every page change", moved, len(all))
	}

	checkSwarmView(t, s)

	// Quiesce: stop the clients (no more uploads), then compare the
	// books while the manager still runs.
	peers := make([]string, len(s.clients))
	for i, c := range s.clients {
		st, err := c.Status(context.Background())
		if err != nil || st.Overlay == nil {
			t.Fatalf("client %d status: %+v, %v", i, st.Overlay, err)
		}
		peers[i] = st.Overlay.Peer
	}
	s.stopClients()
	// A client stopped while storage stores its upload: storage finishes
	// it, and the books are compared after.
	ictx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.m.Storage().Idle(ictx); err != nil {
		t.Fatalf("storage still busy a minute after the clients stopped: %v", err)
	}
	checkWARC(t, s.m, web, sites)
	checkCredits(t, s, peers)
	if mf := web.Total().MaxInFlight; mf > 1 {
		t.Errorf("a host answered %d requests at once, want at most 1 (one connection per host)", mf)
	}
}

// waitMembers waits until every client holds a zone and the manager
// knows all of them as members, with their current zones.
func (s *swarm) waitMembers(t *testing.T) {
	t.Helper()
	waitFor(t, 60*time.Second, "every peer in the overlay and known to the manager", func() bool {
		for _, c := range s.clients {
			if st, _ := c.Status(context.Background()); st.Overlay == nil || !st.Overlay.Member {
				return false
			}
		}
		st, err := s.m.Status()
		if err != nil || len(st.Swarm.Peers) != len(s.clients) {
			return false
		}
		// Zones as the members last reported them tile the space: no
		// record predates a split. (The hashing baseline aims each host
		// at a point of its member's reported zone; a stale record sends
		// it on to whoever holds that point now.)
		return tiled(st)
	})
}

// tiled reports whether the members' zones in the manager's view add up
// to the whole space.
func tiled(st operator.Status) bool {
	vol := 0.0
	for _, p := range st.Swarm.Peers {
		if len(p.Zones) == 0 {
			return false
		}
		for _, z := range p.Zones {
			v := 1.0
			for i := range z.Lo {
				v *= z.Hi[i] - z.Lo[i]
			}
			vol += v
		}
	}
	return math.Abs(vol-1) < 1e-9
}

// checkSwarmView checks the manager's view of the swarm: every member with
// its zones, which tile the space, and every host joined to a member.
func checkSwarmView(t *testing.T, s *swarm) {
	t.Helper()
	var st operator.Status
	waitFor(t, 30*time.Second, "the members' zones to tile the space in the manager's view", func() bool {
		var err error
		st, err = s.m.Status()
		if err != nil {
			t.Fatal(err)
		}
		return len(st.Swarm.Peers) == len(s.clients) && tiled(st)
	})
	members := map[string]bool{}
	for _, p := range st.Swarm.Peers {
		members[p.ID] = true
	}
	for _, h := range st.Swarm.Hosts {
		if !members[h.Owner] {
			t.Errorf("host %s went to %q, not a member", h.Channel, h.Owner)
		}
	}
	if len(st.Swarm.Hosts) == 0 {
		t.Error("the swarm view has no hosts")
	}
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serveSites serves n fixture hosts named prefix-NN.test of pages pages
// each until the test ends, and returns their seed URLs.
func serveSites(t *testing.T, prefix string, n, pages int) []string {
	t.Helper()
	sites := make([]fixture.Site, n)
	for i := range sites {
		sites[i] = fixture.Site{Name: fmt.Sprintf("%s-%02d.test", prefix, i), Pages: pages, PageBytes: 2 << 10}
	}
	web, err := fixture.New(sites, fixture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Close() })
	seeds := make([]string, n)
	for i, st := range sites {
		seeds[i] = web.URL(st.Name)
	}
	return seeds
}

// crawlWait bounds a swarm's crawl of its web in these tests. It is a
// deadline for a stuck crawl, not a measure of speed: beside other test
// packages and CPU-bound processes, the 90 s once allowed ran out with
// 52 of TestNetworkCrawlsEveryChannel's 73 tasks still open.
const crawlWait = 5 * time.Minute

// waitCrawled waits until every channel of the manager has n results; on
// timeout it reports where each channel still lacking one stands.
func waitCrawled(t *testing.T, m *manager.Manager, d time.Duration, n int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !allUpdated(t, m.Channels(), n) {
		if time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		all, _ := m.Channels().All(0)
		latest, _ := m.Channels().Latest()
		open, _ := m.Channels().Open()
		for _, c := range all {
			if c.Updates < n {
				tk := latest[c.ID]
				t.Logf("channel %s: %d results, %d submitted, %d failures; latest task %s %s sent %v owner %q holder %q epoch %d start-by %v expires %v released %v pages %d moved %v",
					c.ID, c.Updates, c.Submitted, c.Failures, tk.ID, tk.State, tk.Sent, tk.Owner, tk.Holder, tk.Epoch, tk.StartBy, tk.Expires, tk.Released, tk.Pages, tk.MovedAt)
			}
		}
		for _, tk := range open {
			t.Logf("open task %s (checks %q) host %s sent %v sending %v owner %q holder %q epoch %d", tk.ID, tk.Checks, tk.Host, tk.Sent, tk.Sending, tk.Owner, tk.Holder, tk.Epoch)
		}
		if st, err := m.Status(); err == nil {
			t.Logf("manager: tasks %v, %d peers", st.Tasks, len(st.Swarm.Peers))
		}
		t.Fatalf("gave up waiting for every channel to have %d results", n)
	}
}

func allUpdated(t *testing.T, db *channels.DB, n int) bool {
	all, err := db.All(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		return false
	}
	for _, c := range all {
		if c.Updates < n {
			return false
		}
	}
	return true
}

// eachText calls fn with the target URL and text of every conversion
// record in the manager's WARC files; it fails the test when there are
// none.
func eachText(t *testing.T, m *manager.Manager, fn func(target string, text []byte)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(m.Dir(), "warc", "*.warc.gz"))
	if len(files) == 0 {
		t.Fatal("no WARC files written")
	}
	// Other tests' managers write WARC meanwhile: gowarc is used under
	// its process-wide lock.
	defer export.LockGowarc()()
	for _, f := range files {
		r, err := gowarc.NewWarcFileReader(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, _, _, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if rec.Type() != gowarc.Conversion {
				rec.Close()
				continue
			}
			target := rec.WarcHeader().Get(gowarc.WarcTargetURI)
			rd, err := rec.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(rd)
			rec.Close()
			fn(target, body)
		}
		r.Close()
	}
}

// checkWARC reads every WARC file back and checks that each host's pages
// are there as conversion records with the text the host served.
func checkWARC(t *testing.T, m *manager.Manager, web *fixture.Web, sites []fixture.Site) {
	t.Helper()
	perHost := map[string]int{}
	records := 0
	eachText(t, m, func(target string, body []byte) {
		if len(body) == 0 {
			t.Errorf("%s: empty text", target)
		}
		for _, st := range sites {
			if strings.HasPrefix(target, web.URL(st.Name)) {
				perHost[st.Name]++
			}
		}
		records++
	})
	for _, st := range sites {
		if perHost[st.Name] == 0 {
			t.Errorf("no WARC record for %s", st.Name)
		}
	}
	tot, err := m.Storage().Totals()
	if err != nil {
		t.Fatal(err)
	}
	if int64(records) != tot.Records {
		t.Errorf("read back %d conversion records, storage counted %d", records, tot.Records)
	}
}

// checkCredits compares each client's ledger with its receipts and with
// what the storage module granted.
func checkCredits(t *testing.T, s *swarm, peers []string) {
	t.Helper()
	key := s.m.PublicKey()
	contrib, err := s.m.Storage().Contributors()
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := s.m.Storage().Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	// A result whose host changed before any spot-check fetched it earns
	// nothing and is not served (no check could tell): the web's doing,
	// not the peer's, and no mark against it.
	untold := map[string]float64{}
	for _, v := range verdicts {
		switch {
		case v.Verdict != storage.VerdictValid:
			t.Errorf("an honest result failed its spot-checks: %+v", v)
		case v.Untold:
			r, found, err := s.m.Storage().Receipt(v.Task)
			if err != nil || !found {
				t.Fatalf("receipt of %s: found %v, %v", v.Task, found, err)
			}
			untold[v.Peer] += r.Credits
			t.Logf("result %s of %s untold: %s", v.Task, v.Peer, v.Reason)
		}
	}
	granted := map[string]float64{}
	var grantedAll float64
	for _, c := range contrib {
		granted[c.Peer] = c.Credits
		grantedAll += c.Credits
		if !near(c.Revoked, untold[c.Peer]) {
			// Every peer here is honest: no result of theirs fails its
			// spot-checks, and no check of theirs is contradicted.
			t.Errorf("peer %s lost %.2f credits to spot-checks in a swarm without cheats (%.2f of them on results no check could tell)", c.Peer, c.Revoked, untold[c.Peer])
		}
	}
	defer func() {
		if t.Failed() {
			for _, v := range verdicts {
				t.Logf("verdict: %+v", v)
			}
		}
	}()
	var ledgers float64
	active := 0
	for i, c := range s.clients {
		l, err := ledger.Open(c.Dirs().LedgerFile())
		if err != nil {
			t.Fatal(err)
		}
		entries, err := l.Entries(0)
		if err != nil {
			t.Fatal(err)
		}
		tot, err := l.Totals(time.Now())
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		var sum, late float64
		peerID := peers[i]
		kept := map[string]bool{}
		for _, e := range entries {
			r, err := upload.VerifyReceipt(e.Raw, key)
			if err != nil {
				t.Fatalf("client %d: receipt for %s does not verify: %v", i, e.Receipt.TaskID, err)
			}
			if e.State() != r.Settled() {
				t.Errorf("client %d: receipt for %s kept as %s, it says %s", i, r.TaskID, e.State(), r.Settled())
			}
			if r.Peer != peerID {
				t.Errorf("client %d (%s) holds a receipt of %s", i, peerID, r.Peer)
			}
			if r.Settled() != task.CreditRevoked {
				sum += r.Credits
			} else {
				t.Logf("client %d: receipt for %s (%.2f credits) revoked: %s", i, r.TaskID, r.Credits, r.Reason)
			}
			kept[r.TaskID] = true
			// Storage may have settled a pending receipt after the
			// client last asked (every SettleEvery): the client keeps
			// storage's current one at its next start.
			if r.Settled() == task.CreditPending {
				late += settledSince(t, s.m.Storage(), i, r)
			}
		}
		if len(entries) > 0 {
			active++
		}
		if !near(tot.Confirmed+tot.Pending, sum) {
			t.Errorf("client %d: ledger says %.2f confirmed + %.2f pending, its receipts add up to %.2f", i, tot.Confirmed, tot.Pending, sum)
		}
		// A client stopped between storage accepting a result and keeping
		// its receipt keeps it at its next start: storage's figure counts
		// it already.
		unkept := unkeptCredits(t, s.m.Storage(), c, peerID, kept)
		if unkept > 0 {
			t.Logf("client %d: results worth %.2f credits stored, their receipts not yet kept", i, unkept)
		}
		if !near(granted[peerID], sum+late+unkept) {
			t.Errorf("client %d (%s): storage granted %.2f, the client's receipts add up to %.2f (%+.2f settled since it last asked, %.2f more not yet kept)", i, peerID, granted[peerID], sum, late, unkept)
		}
		ledgers += sum + late + unkept
	}
	if !near(ledgers, grantedAll) {
		t.Errorf("all ledgers add up to %.2f, storage granted %.2f", ledgers, grantedAll)
	}
	if active < 2 {
		t.Errorf("only %d of %d peers earned credits: the overlay did not spread the work", active, len(s.clients))
	}
	t.Logf("%d of %d peers crawled; %.2f credits granted", active, len(s.clients), grantedAll)
}

// settledSince returns how storage's current receipt for r, a receipt
// client i keeps as pending, changes the client's credit: -r.Credits when
// storage revoked it since the client last asked, 0 otherwise. A receipt
// storage does not have, or holds for another peer or with other credits,
// fails the test.
func settledSince(t *testing.T, st *storage.Storage, i int, r task.Receipt) float64 {
	t.Helper()
	now, found, err := st.Receipt(r.TaskID)
	switch {
	case err != nil:
		t.Fatal(err)
	case !found || now.Peer != r.Peer || !near(now.Credits, r.Credits):
		t.Errorf("client %d keeps a pending receipt for %s (%.2f credits) that storage holds as %+v (found %v)", i, r.TaskID, r.Credits, now, found)
		return 0
	case now.Settled() == task.CreditPending:
		return 0
	}
	t.Logf("client %d: receipt for %s (%.2f credits) %s since it last asked: %s", i, r.TaskID, r.Credits, now.Settled(), now.Reason)
	if now.Settled() == task.CreditRevoked {
		return -r.Credits
	}
	return 0
}

// unkeptCredits returns the credits of the stopped client's results that
// storage accepted for peer but whose receipts the client has not kept
// (kept lists the task IDs its ledger holds).
func unkeptCredits(t *testing.T, st *storage.Storage, c *Client, peer string, kept map[string]bool) float64 {
	t.Helper()
	q, err := queue.Open(c.Dirs().QueueFile(), queue.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	rs, err := q.Uploads()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, r := range rs {
		rc, found, err := st.Receipt(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !found || rc.Peer != peer || kept[r.ID]:
		case rc.Settled() == task.CreditRevoked:
			t.Logf("upload of %s (%.2f credits) revoked before its receipt was kept: %s", r.ID, rc.Credits, rc.Reason)
		default:
			sum += rc.Credits
		}
	}
	return sum
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

// TestNetworkHashAssignment runs the consistent-hashing baseline: the
// manager hands each host straight to the member its ring picks, and that
// member crawls it.
func TestNetworkHashAssignment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 5 libp2p hosts and 12 web hosts")
	}
	seeds := serveSites(t, "hash", 12, 4)
	s := startSwarm(t, 4, time.Hour, manager.AssignHash)
	s.waitMembers(t)
	if _, err := s.m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	waitCrawled(t, s.m, crawlWait, 1)
	checkSwarmView(t, s)
	st, err := s.m.Status()
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]int{}
	for _, h := range st.Swarm.Hosts {
		owners[h.Owner]++
	}
	if len(owners) < 2 {
		t.Errorf("hashing gave all %d hosts to %d peer(s): %v; members: %+v", len(st.Swarm.Hosts), len(owners), owners, st.Swarm.Peers)
	}
	code, page := getPage(t, s.m)
	if code != 200 || !strings.Contains(page, "<circle") || !strings.Contains(page, "<line") {
		t.Errorf("manager page %d lacks the swarm drawing", code)
	}
}

func getPage(t *testing.T, m *manager.Manager) (int, string) {
	t.Helper()
	resp, err := http.Get(m.APIURL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPeerBookRemembersAtJoin: a volunteer stopped seconds after joining,
// before its first membership renewal, has its neighbours in its peer
// book, to rejoin through them should the manager be gone by then.
func TestPeerBookRemembersAtJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 4 libp2p hosts")
	}
	s := startSwarm(t, 3, time.Hour, manager.AssignCAN)
	s.waitMembers(t)
	others := map[string]bool{}
	for _, c := range s.clients[:2] {
		st, err := c.Status(context.Background())
		if err != nil || st.Overlay == nil {
			t.Fatalf("status: %+v, %v", st.Overlay, err)
		}
		others[st.Overlay.Peer] = true
	}
	last := len(s.clients) - 1
	s.cancelClient[last]()
	err := <-s.clientsDone[last]
	s.clientsDone[last] <- err // for stopClients
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(s.clients[last].Dirs().Data, fmt.Sprintf(paths.PeerBookPattern, "*")))
	if len(files) != 1 {
		t.Fatalf("peer books %v, want one", files)
	}
	book, err := host.OpenPeerBook(files[0], host.DefaultBookSize)
	if err != nil {
		t.Fatal(err)
	}
	var known []string
	for _, ai := range book.Peers() {
		if others[ai.ID.String()] {
			known = append(known, ai.ID.String())
		}
	}
	if len(known) == 0 {
		t.Errorf("the peer book names none of the other members (%d entries)", len(book.Peers()))
	}
}
