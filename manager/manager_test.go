package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/crawler/crawlertest"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/dispatch"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

var quiet = slog.New(slog.DiscardHandler)

var submitOpts = submit.Options{Dim: 2}

// memQueue is an overlay peer's queue that keeps what it was given.
type memQueue struct {
	mu     sync.Mutex
	tasks  []*task.Task
	envs   [][]byte
	proofs map[string][]byte // by task ID, kept when taken
}

func (q *memQueue) Enqueue(_ context.Context, t *task.Task, env, proof []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tasks, q.envs = append(q.tasks, t), append(q.envs, env)
	if q.proofs == nil {
		q.proofs = map[string][]byte{}
	}
	q.proofs[t.ID] = proof
	return nil
}

// proof returns the proof task id came with, for its lease claim.
func (q *memQueue) proof(id string) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.proofs[id]
}
func (q *memQueue) Load() (int, int64) { q.mu.Lock(); defer q.mu.Unlock(); return len(q.tasks), 0 }
func (q *memQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	return nil, nil, nil
}
func (q *memQueue) take() ([]*task.Task, [][]byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, e := q.tasks, q.envs
	q.tasks, q.envs = nil, nil
	return t, e
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newManager(t *testing.T, dir string, clk *clock) *Manager {
	t.Helper()
	return newManagerWith(t, dir, clk, nil)
}

// newManagerWith is newManager with its options changed by opt.
func newManagerWith(t testing.TB, dir string, clk *clock, opt func(*Options)) *Manager {
	t.Helper()
	o := Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true,
		Now: clk.now, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts},
		// Short rounds: the overlay peer checks a task's times by the real
		// clock, so the test clock stays within its skew allowance.
		Schedule: ScheduleOptions{Strategy: StrategyIIR, Channels: channels.Options{Prior: 90 * time.Second}}}
	if opt != nil {
		opt(&o)
	}
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func api(t *testing.T, m *Manager, method, path, host, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, m.APIURL()+path, rd)
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestManagerRound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	dir := t.TempDir()
	m := newManager(t, dir, clk)
	go m.api.Serve(ctx)

	// Seeds through the local API: token and Host header are checked, and
	// a request is taken all or none (AddSites).
	seeds := operator.SeedsRequest{URLs: []string{"http://a.example/", "http://b.example/x"}}
	apiCases := []struct {
		name, host, token string
		body              operator.SeedsRequest
		want              int
		says              string // in the answer
	}{
		{"no token", "", "", seeds, http.StatusUnauthorized, ""},
		{"wrong token", "", "nope", seeds, http.StatusUnauthorized, ""},
		{"foreign host", "evil.example", m.APIToken(), seeds, http.StatusForbidden, ""},
		{"a bad URL refuses all", "", m.APIToken(), operator.SeedsRequest{URLs: append(seeds.URLs, "not a url")}, http.StatusBadRequest, "nothing added"},
		{"loopback refused", "", m.APIToken(), operator.SeedsRequest{URLs: append(seeds.URLs, "http://127.0.0.1:8080/")}, http.StatusBadRequest, "127.0.0.1 is not a public address"},
		{"good", "", m.APIToken(), seeds, http.StatusOK, `"created":["a.example","b.example"]`},
		{"again: known", "", m.APIToken(), seeds, http.StatusOK, `"known":["http://a.example/","http://b.example/x"]`},
	}
	for _, tt := range apiCases {
		t.Run(tt.name, func(t *testing.T) {
			code, body := api(t, m, "POST", "/api/seeds", tt.host, tt.token, tt.body)
			if code != tt.want || !strings.Contains(string(body), tt.says) {
				t.Fatalf("POST /api/seeds = %d %s, want %d with %q", code, body, tt.want, tt.says)
			}
		})
	}
	if n, _ := m.db.Count(); n != 2 {
		t.Fatalf("%d channels after the API calls, want 2", n)
	}

	key := m.PublicKey()
	prof, err := profile.Read(m.ProfilePath())
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := prof.Key()
	if !pk.Equals(key) {
		t.Fatal("profile key is not the manager's")
	}
	q, ph := onePeerOverlay(ctx, t, m)

	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q.take()
	if len(tasks) != 2 {
		t.Fatalf("overlay peer got %d tasks, want 2", len(tasks))
	}
	// Each carries the policy as the manager completed it once its site
	// server was up: the User-Agent names the bot page.
	for _, tk := range tasks {
		if ua := tk.Policy.UserAgent; !strings.HasSuffix(ua, "(+"+m.BotPageURL()+")") {
			t.Fatalf("task %s signed with User-Agent %q, want one naming the bot page %s", tk.ID, ua, m.BotPageURL())
		}
	}
	// A tick before the interval passed issues nothing new.
	clk.add(30 * time.Second)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := q.take(); len(again) != 0 {
		t.Fatalf("%d tasks resubmitted before their interval", len(again))
	}
	// The peer claims each task's lease, "crawls" and uploads; the receipt
	// verifies with the profile key.
	up := &upload.Uploader{Host: ph, Storage: m.ID(), Manager: pk, Nickname: "alice"}
	for i, tk := range tasks {
		raw := claimAndUpload(ctx, t, ph, m.ID(), up, tk, envs[i], q.proof(tk.ID), []*task.Page{{URL: tk.Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte("text of " + tk.Channel)}})
		rc, err := upload.VerifyReceipt(raw, pk)
		if err != nil || rc.PagesNew != 1 || rc.Credits <= 0 {
			t.Fatalf("receipt %+v, %v", rc, err)
		}
	}
	st, err := m.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks["done"] != 2 || st.Stored.Uploads != 2 || len(st.Contributors) != 1 || st.Contributors[0].Nickname != "alice" || st.Channels != 2 {
		t.Fatalf("status %+v", st)
	}
	code, page := api(t, m, "GET", "/", "", "", nil)
	if code != http.StatusOK || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "alice") {
		t.Fatalf("status page %d:\n%s", code, page)
	}
	// After the interval the channels are due again.
	iv, _ := m.sched.Interval(0)
	clk.add(iv)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := q.take(); len(again) != 2 || again[0].ID == tasks[0].ID {
		t.Fatalf("second round: %d tasks", len(again))
	}
}

func deliver(t *testing.T, tk *task.Task, env []byte, pages []*task.Page) taskmgr.Delivery {
	t.Helper()
	return taskmgr.Delivery{TaskID: tk.ID, Channel: tk.Channel, Raw: env, Spool: crawlertest.Spool(t, pages),
		Result: &task.Result{TaskID: tk.ID, Channel: tk.Channel, Stats: task.Stats{PagesFetched: len(pages)}}}
}

// claimAndUpload claims task tk's lease from the manager mgr as the
// overlay peer ph, and uploads pages as its result; it returns the
// receipt.
func claimAndUpload(ctx context.Context, t *testing.T, ph *host.Host, mgr peer.ID, up *upload.Uploader, tk *task.Task, env, proof []byte, pages []*task.Page) []byte {
	t.Helper()
	if _, err := lease.Send(ctx, ph, mgr, lease.Request{Op: lease.Claim, Task: env, Proof: proof, TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
		t.Fatal(err)
	}
	raw, err := up.Upload(ctx, deliver(t, tk, env, pages))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// waitFor polls cond for up to 10 s; it waits for an event, it does not
// time anything.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A host that grew past PieceAbove pages is crawled in pieces next round.
func TestLargeHostSplitIntoPieces(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	m, err := New(ctx, Options{
		Dir:      t.TempDir(),
		Listen:   []string{"/ip4/127.0.0.1/tcp/0"},
		Now:      clk.now,
		Logger:   quiet,
		Schedule: ScheduleOptions{PieceAbove: 4, Pieces: 2, Strategy: StrategyFixed},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.AddSeeds([]string{"http://big.example/"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	open, _ := m.db.Open()
	if len(open) != 1 {
		t.Fatalf("first round: %d tasks", len(open))
	}
	var fb channels.Feedback
	for i, u := range []string{"/", "/news/1", "/news/2", "/news/3", "/sport/1", "/sport/2"} {
		fb.Pages = append(fb.Pages, channels.PageResult{URL: "http://big.example" + u, Digest: task.Digest(i)})
	}
	fb.Stats.Dirs = map[string]int{"/": 1, "/news/": 3, "/sport/": 2}
	// Only the lease holder's result counts.
	if _, err := m.book.Complete(ctx, open[0].ID, "peer", fb); !errors.Is(err, channels.ErrNotHolder) {
		t.Fatalf("result before a claim = %v, want ErrNotHolder", err)
	}
	if _, err := m.db.Claim(open[0].ID, open[0].Epoch, "peer", clk.now(), m.opts.leaseTimes(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.book.Complete(ctx, open[0].ID, "peer", fb); err != nil {
		t.Fatal(err)
	}
	clk.add(channels.DefaultPrior)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	open, _ = m.db.Open()
	if len(open) != 2 {
		t.Fatalf("second round: %d tasks, want 2 pieces", len(open))
	}
	c, _ := m.db.Get("big.example")
	if len(c.Pieces) != 2 || c.Pending != 2 {
		t.Fatalf("channel %+v", c)
	}
}

// TestStoppedMidSendSentAgain: a task the manager was sending when it
// stopped may or may not sit in a peer's queue. Unless a crawler claimed
// it meanwhile, it is sent again under a new lease epoch, and the copy
// the overlay may hold can no longer claim the host: one crawler per
// host, and no wait for the lost copy's lease to lapse. A claimed one is
// not sent again.
func TestStoppedMidSendSentAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	m := newManager(t, t.TempDir(), clk)
	if _, err := m.db.AddSeeds([]string{"http://a.example/", "http://b.example/"}, clk.now()); err != nil {
		t.Fatal(err)
	}
	// No overlay peer yet: the round is issued, nothing is sent.
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	open, err := m.db.Open()
	if err != nil || len(open) != 2 {
		t.Fatalf("open tasks %v, %v; want 2", open, err)
	}
	for _, tk := range open {
		if tk.Sent || tk.Sending {
			t.Fatalf("task %s sent (%v) or being sent (%v) without a peer", tk.ID, tk.Sent, tk.Sending)
		}
	}
	// As if the manager had stopped while sending both, after a crawler
	// got the second one and claimed it.
	lt := m.opts.leaseTimes(time.Hour)
	var old [2]channels.Task
	for i, tk := range open {
		g, ok, err := m.db.Grant(tk.ID, clk.now(), lt)
		if err != nil || !ok {
			t.Fatalf("grant %s: %v, %v", tk.ID, ok, err)
		}
		if err := m.db.Signed(tk.ID, []byte("envelope")); err != nil {
			t.Fatal(err)
		}
		old[i] = g
	}
	cut, claimed := old[0], old[1]
	if _, err := m.db.Claim(claimed.ID, claimed.Epoch, "crawler", clk.now(), lt); err != nil {
		t.Fatal(err)
	}

	q, _ := onePeerOverlay(ctx, t, m)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := q.take()
	if len(got) != 1 || got[0].ID != cut.ID {
		ids := []string{}
		for _, tk := range got {
			ids = append(ids, tk.ID)
		}
		t.Fatalf("the peer got %v; want only %s, the task nobody claimed", ids, cut.ID)
	}
	if got[0].Lease.Epoch <= cut.Epoch {
		t.Fatalf("sent again under epoch %d; want a newer one than %d", got[0].Lease.Epoch, cut.Epoch)
	}
	if _, err := m.db.Claim(cut.ID, cut.Epoch, "holder-of-a-lost-copy", clk.now(), lt); !errors.Is(err, channels.ErrLeaseOver) {
		t.Fatalf("claim under the cut-short send's epoch = %v; want ErrLeaseOver", err)
	}
	if _, err := m.db.Claim(cut.ID, got[0].Lease.Epoch, "crawler-2", clk.now(), lt); err != nil {
		t.Fatalf("claim under the new epoch: %v", err)
	}
	tk, err := m.db.Task(claimed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.Sent || tk.Sending || tk.Owner != "" || tk.Epoch != claimed.Epoch || tk.Holder != "crawler" || tk.State != channels.TaskOpen {
		t.Fatalf("claimed task stopped mid-send is %+v; want open, sent to no known owner, still held by its crawler", tk)
	}
}

// cutQueue is an overlay peer's queue that queues a task and then, while
// cuts remain, closes the peer's connections to the manager before the
// answer goes back: a peer leaving mid-insert, whose queue may hold the
// task though the manager heard nothing.
type cutQueue struct {
	memQueue
	mu   sync.Mutex
	cuts int
	cut  func()
}

func (q *cutQueue) Enqueue(ctx context.Context, t *task.Task, env, proof []byte) error {
	if err := q.memQueue.Enqueue(ctx, t, env, proof); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cuts > 0 {
		q.cuts--
		q.cut()
	}
	return nil
}

// TestUnansweredSendSentAgain: a send that got no answer may have left a
// copy in a peer's queue, or none (the peer left with it). Unless a
// crawler claimed it, the next tick sends it again under a new lease
// epoch, which fences the first copy out; after dispatch.UnansweredResends more
// unanswered sends it is left to its start window. Before, the first
// unanswered send was final: a copy lost with its peer held the host
// until the start window passed, and the channel lost its round.
func TestUnansweredSendSentAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, clk := issuedNotSent(ctx, t, "http://a.example/")
	q := &cutQueue{cuts: 1 + dispatch.UnansweredResends}
	ph := onePeerOverlayWith(ctx, t, m, q)
	q.cut = func() { ph.Network().ClosePeer(m.Host().ID()) }
	reconnect := func() {
		t.Helper()
		if err := ph.Connect(ctx, m.Host().AddrInfo()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return slices.Contains(m.sub.EntryPeers(), ph.ID()) })
	}

	// The first send, cut off: the task is being sent, not sent.
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := q.take()
	if len(got) != 1 {
		t.Fatalf("the peer got %d tasks, want 1", len(got))
	}
	first := got[0]
	tk, err := m.db.Task(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Sent || !tk.Sending || tk.Unanswered != 1 {
		t.Fatalf("after an unanswered send the task is %+v; want being sent, 1 send unanswered", tk)
	}

	// Sent again under a new epoch, cut off again, and so on until the
	// resends are spent.
	epoch := first.Lease.Epoch
	for i := range dispatch.UnansweredResends {
		reconnect()
		clk.add(time.Second)
		if err := m.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		got, _ := q.take()
		if len(got) != 1 || got[0].ID != first.ID || got[0].Lease.Epoch <= epoch {
			t.Fatalf("resend %d: the peer got %d tasks; want %s again under an epoch after %d", i+1, len(got), first.ID, epoch)
		}
		epoch = got[0].Lease.Epoch
	}
	lt := m.opts.leaseTimes(time.Hour)
	if _, err := m.db.Claim(first.ID, first.Lease.Epoch, "holder-of-the-first-copy", clk.now(), lt); !errors.Is(err, channels.ErrLeaseOver) {
		t.Fatalf("claim under the first send's epoch = %v; want ErrLeaseOver", err)
	}
	tk, err = m.db.Task(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.Sent || tk.Sending || tk.Unanswered != 1+dispatch.UnansweredResends || tk.Epoch != epoch {
		t.Fatalf("after %d unanswered sends the task is %+v; want sent (left to its start window) under epoch %d", 1+dispatch.UnansweredResends, tk, epoch)
	}
	reconnect()
	clk.add(time.Second)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.take(); len(got) != 0 {
		t.Fatalf("the peer got %d tasks after the resends were spent; want none", len(got))
	}
	if _, err := m.db.Claim(first.ID, epoch, "crawler", clk.now(), lt); err != nil {
		t.Fatalf("claim under the last send's epoch: %v", err)
	}
}

// issuedNotSent starts a manager on a test clock with seeds and ticks
// once: with no overlay peer yet, their first round is issued, not sent.
func issuedNotSent(ctx context.Context, t *testing.T, seeds ...string) (*Manager, *clock) {
	t.Helper()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	if _, err := m.db.AddSeeds(seeds, clk.now()); err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	return m, clk
}

// firstTask gives m the seed http://a.example/ and an overlay of one
// peer, ticks once, and returns the peer's queue (emptied), the one task
// issued, its envelope and the peer's host.
func firstTask(ctx context.Context, t *testing.T, m *Manager) (*memQueue, *task.Task, []byte, *host.Host) {
	t.Helper()
	if _, err := m.AddSeeds([]string{"http://a.example/"}); err != nil {
		t.Fatal(err)
	}
	q, ph := onePeerOverlay(ctx, t, m)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q.take()
	if len(tasks) != 1 {
		t.Fatalf("%d tasks issued, want 1", len(tasks))
	}
	return q, tasks[0], envs[0], ph
}

// onePeerOverlay starts an overlay peer that owns the whole space, trusts
// m's key and is connected to m as its entry peer; it returns the peer's
// queue and host.
func onePeerOverlay(ctx context.Context, t *testing.T, m *Manager) (*memQueue, *host.Host) {
	t.Helper()
	q := &memQueue{}
	return q, onePeerOverlayWith(ctx, t, m, q)
}

// testClientVersion is the release the tests' peers state: the minimum
// TestMinClientVersionRefusesClaims sets.
const testClientVersion = "0.3.0"

// onePeerOverlayWith is onePeerOverlay with the peer's queue q.
func onePeerOverlayWith(ctx context.Context, t *testing.T, m *Manager, q node.Queue) *host.Host {
	t.Helper()
	ph, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ph.Close() })
	n, err := node.New(ph, q, node.Config{Dim: 2, Point: can.Point{0.5, 0.5}, Manager: m.PublicKey(), Logger: quiet,
		Authority: entry.Client{Host: ph, Manager: m.ID(), Version: testClientVersion}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ph.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	if err := n.Join(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return slices.Contains(m.sub.EntryPeers(), ph.ID()) })
	return ph
}

// TestProfileNamesOtherBootstrapPeers: --bootstrap peers follow the
// manager's own addresses in the profile; one that is no peer address
// keeps the manager from starting.
func TestProfileNamesOtherBootstrapPeers(t *testing.T) {
	other := "/ip4/93.184.216.20/udp/4901/quic-v1/p2p/12D3KooWAu8ZGC15MrA4WzT4SPD8srs72JfH5FjEifhsJQjpiBba"
	m := newManagerWith(t, t.TempDir(), &clock{t: time.Now().UTC()}, func(o *Options) { o.Bootstrap = []string{other} })
	p, err := profile.Read(m.ProfilePath())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Bootstrap); n < 2 || p.Bootstrap[n-1] != other {
		t.Fatalf("profile bootstrap %v, want the manager's addresses then %s", p.Bootstrap, other)
	}
	_, err = New(context.Background(), Options{Dir: t.TempDir(), Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true,
		Logger: quiet, Bootstrap: []string{"/ip4/198.51.100.20/tcp/4901"}})
	if err == nil {
		t.Fatal("a bootstrap address without /p2p/ID was accepted")
	}
}

// gateQueue is an overlay peer's queue whose first Enqueue waits until
// release is closed, like a peer busy or gone mid-insert.
type gateQueue struct {
	memQueue
	first   chan *task.Task // the task held at the gate
	release chan struct{}
	once    sync.Once
}

func (q *gateQueue) Enqueue(ctx context.Context, t *task.Task, env, proof []byte) error {
	held := false
	q.once.Do(func() { held = true })
	if held {
		q.first <- t
		<-q.release
	}
	return q.memQueue.Enqueue(ctx, t, env, proof)
}

// TestSlowInsertHoldsUpOnlyItsHost: while one host's task waits on a
// slow insert, the other host's task is sent; sent one after another, it
// waited for the first to time out (dispatch.SendTimeout).
func TestSlowInsertHoldsUpOnlyItsHost(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, _ := issuedNotSent(ctx, t, "http://a.example/", "http://b.example/")
	q := &gateQueue{first: make(chan *task.Task, 1), release: make(chan struct{})}
	onePeerOverlayWith(ctx, t, m, q)

	ticked := make(chan error, 1)
	go func() { ticked <- m.Tick(ctx) }()
	slow := <-q.first
	waitFor(t, func() bool { n, _ := q.Load(); return n == 1 })
	rec, err := m.db.Task(slow.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Sending || rec.Sent {
		t.Fatalf("the slow task is %+v when the other host's task arrived; want still being sent", rec)
	}
	close(q.release)
	if err := <-ticked; err != nil {
		t.Fatal(err)
	}
	got, _ := q.take()
	if len(got) != 2 || got[0].Host() == got[1].Host() {
		t.Fatalf("the peer got %d tasks; want one for each host", len(got))
	}
}

// TestClaimedTaskNotSentAgainAfterFailedSend: a send told it failed after
// the overlay delivered the task and a crawler claimed it (an answer lost
// on the way back, a retry refused as seen before) is not granted and
// sent again: a second crawler would work on the host beside the first.
func TestClaimedTaskNotSentAgainAfterFailedSend(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, clk := issuedNotSent(ctx, t, "http://a.example/")
	open, err := m.db.Open()
	if err != nil || len(open) != 1 {
		t.Fatalf("open tasks %v, %v; want 1", open, err)
	}
	// What the dispatcher records of a send that reached a crawler and was then
	// told it failed.
	lt := m.opts.leaseTimes(time.Hour)
	g, ok, err := m.db.Grant(open[0].ID, clk.now(), lt)
	if err != nil || !ok {
		t.Fatalf("grant: %v, %v", ok, err)
	}
	if err := m.db.Signed(g.ID, []byte("envelope")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.db.Claim(g.ID, g.Epoch, "crawler", clk.now(), lt); err != nil {
		t.Fatal(err)
	}
	if err := m.db.MarkSending(g.ID, false); err != nil {
		t.Fatal(err)
	}

	q, _ := onePeerOverlay(ctx, t, m)
	clk.add(time.Second)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.take(); len(got) != 0 {
		t.Fatalf("the peer got %d tasks; want none: the task is claimed", len(got))
	}
	tk, err := m.db.Task(g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.Sent || tk.Epoch != g.Epoch || tk.Holder != "crawler" {
		t.Fatalf("task is %+v; want sent, still under epoch %d held by its crawler", tk, g.Epoch)
	}
}

// wholeSpaceProof is a proof that peer id holds the whole space, signed
// with m's key until an hour after now: a stand-in for a zone the map
// granted it, for tests whose peer claims a task the overlay did not
// bring it.
func wholeSpaceProof(t *testing.T, m *Manager, id peer.ID, now time.Time) []byte {
	t.Helper()
	c := zonecert.Cert{Path: "", Holder: id, Epoch: 1 << 40, Expiry: now.Add(time.Hour)}
	if err := c.Sign(m.key); err != nil {
		t.Fatal(err)
	}
	b, err := zonecert.OwnerProof(c).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
