package node

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node/nodetest"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

var quiet = slog.New(slog.DiscardHandler)

// memQueue is an in-memory Queue.
type memQueue struct {
	mu     sync.Mutex
	tasks  []*task.Task
	envs   [][]byte
	proofs [][]byte
	// running makes Drain return the tasks as running ones; drained and
	// enqueued are when Drain and the last Enqueue ran.
	running           bool
	drained, enqueued time.Time
	// fail, when set, is returned by the next Enqueue; late lists tasks
	// enqueued at or after their lease's end.
	fail error
	late []string
	// full is what Full reports.
	full bool
	// capacity, when set, is the most tasks Enqueue keeps; past it, it
	// refuses with ErrQueueFull.
	capacity int
}

// memQueue keeps no seen set: the node keeps one in memory (admission.NewMemory).
var _ Queue = (*memQueue)(nil)

func (q *memQueue) Enqueue(_ context.Context, t *task.Task, env, proof []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.fail; err != nil {
		q.fail = nil
		return err
	}
	if q.capacity > 0 && len(q.tasks) >= q.capacity {
		return fmt.Errorf("enqueue %s: %w", t.ID, ErrQueueFull)
	}
	if !t.Lease.Expires.IsZero() && !time.Now().Before(t.Lease.Expires) {
		q.late = append(q.late, t.ID)
	}
	q.tasks = append(q.tasks, t)
	q.envs = append(q.envs, env)
	q.proofs = append(q.proofs, proof)
	q.enqueued = time.Now()
	return nil
}

func (q *memQueue) Full() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.full
}

func (q *memQueue) Load() (int, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pages := int64(0)
	for _, t := range q.tasks {
		pages += int64(max(1, t.ExpectedPages))
	}
	return len(q.tasks), pages
}

func (q *memQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	envs := q.envs
	q.tasks, q.envs = nil, nil
	q.drained = time.Now()
	if q.running {
		return nil, envs, nil
	}
	return envs, nil, nil
}

func (q *memQueue) ids() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, len(q.tasks))
	for i, t := range q.tasks {
		out[i] = t.ID
	}
	return out
}

// member is one peer of a test cluster.
type member struct {
	h      *host.Host
	n      *Node
	q      *memQueue
	cancel context.CancelFunc
	done   chan struct{}
	// alive is read by the map's Alive callback on peers' goroutines.
	alive atomic.Bool
}

type cluster struct {
	t       *testing.T
	manager crypto.PrivKey
	auth    *nodetest.Authority // the manager's map of zones
	cfg     Config
	// mu guards members against the map's callbacks (Alive, Addrs),
	// which peers' goroutines call while the test adds members.
	mu      sync.Mutex
	members []*member
	rng     *rand.Rand
	// tweak, when set, adjusts each new peer's Config.
	tweak func(self peer.ID, cfg *Config)
	// wrap, when set, gives each new peer a Queue built around its
	// memQueue.
	wrap func(*memQueue) Queue
}

// joinPatience is how long addAt asks again for a join that fails.
const joinPatience = 20 * time.Second

func newCluster(t *testing.T, cfg Config) *cluster {
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Manager = k.GetPublic()
	cfg.Logger = quiet
	// HIVECRAWL_DEBUG=1 logs every peer's debug records, =info its info
	// records, to stderr.
	switch os.Getenv("HIVECRAWL_DEBUG") {
	case "":
	case "info":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	default:
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	c := &cluster{t: t, manager: k, cfg: cfg, rng: rand.New(rand.NewPCG(1, 2))}
	renew := cfg.Renew
	if renew <= 0 {
		renew = DefaultRenew
	}
	c.auth = nodetest.New(k, can.DefaultDim, 3*renew)
	c.auth.Alive = func(id peer.ID) bool {
		for _, m := range c.live() {
			if m.h.ID() == id {
				return true
			}
		}
		return false
	}
	c.auth.Addrs = func(id peer.ID) peer.AddrInfo {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, m := range c.members {
			if m.h.ID() == id {
				return m.h.AddrInfo()
			}
		}
		return peer.AddrInfo{ID: id}
	}
	return c
}

func (c *cluster) randomPoint() can.Point {
	p := make(can.Point, can.DefaultDim)
	for i := range p {
		p[i] = c.rng.Float64()
	}
	return p
}

// add starts a peer and joins it through a random live member (or makes
// it the first peer).
func (c *cluster) add(ctx context.Context) *member {
	return c.addAt(ctx, c.randomPoint())
}

// newNode makes a node at point p on a host of its own, with the
// cluster's config (and tweak), not yet in the overlay.
func (c *cluster) newNode(ctx context.Context, p can.Point) (*Node, *memQueue) {
	t := c.t
	h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	cfg := c.cfg
	cfg.Point = p
	cfg.Authority = c.auth.For(h.ID())
	if c.tweak != nil {
		c.tweak(h.ID(), &cfg)
	}
	q := &memQueue{}
	var queue Queue = q
	if c.wrap != nil {
		queue = c.wrap(q)
	}
	n, err := New(h, queue, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n, q
}

// addAt starts a peer that joins at point p.
func (c *cluster) addAt(ctx context.Context, p can.Point) *member {
	t := c.t
	n, q := c.newNode(ctx, p)
	m := &member{h: n.h, n: n, q: q}
	m.alive.Store(true)
	c.mu.Lock()
	c.members = append(c.members, m) // known to the map's Addrs and Alive
	c.mu.Unlock()
	if err := n.Join(ctx); err != nil {
		t.Fatalf("join %d: %v", len(c.members), err)
	}
	m.run()
	t.Cleanup(m.stop)
	return m
}

// run starts the member's Serve loop.
func (m *member) run() {
	sctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		m.n.Serve(sctx)
	}()
}

func (m *member) stop() {
	m.cancel()
	<-m.done
}

func (c *cluster) live() []*member {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*member
	for _, m := range c.members {
		if m.alive.Load() {
			out = append(out, m)
		}
	}
	return out
}

// tiling reports why the live peers' zones do not tile [0,1]^d, or "".
func (c *cluster) tiling() string {
	var zones []can.Zone
	var owners []peer.ID
	for _, m := range c.live() {
		for _, z := range m.n.Zones() {
			zones = append(zones, z)
			owners = append(owners, m.h.ID())
		}
	}
	vol := 0.0
	for i, z := range zones {
		vol += z.Volume()
		for j := i + 1; j < len(zones); j++ {
			if can.Overlaps(z, zones[j]) {
				return fmt.Sprintf("zones %v (%s) and %v (%s) overlap", z, owners[i].ShortString(), zones[j], owners[j].ShortString())
			}
		}
	}
	if math.Abs(vol-1) > 1e-9 {
		return fmt.Sprintf("zones cover volume %v, want 1", vol)
	}
	return ""
}

// owner returns the live member whose zones contain p.
func (c *cluster) owner(p can.Point) *member {
	for _, m := range c.live() {
		for _, z := range m.n.Zones() {
			if z.Contains(p) {
				return m
			}
		}
	}
	return nil
}

// task returns a task as the manager builds it: issued now, with an hour's
// lease on its host and the host's point target.
func (c *cluster) task(id string, target can.Point) *task.Task {
	now := time.Now().UTC()
	host := id + ".example"
	return &task.Task{
		ID: id, Channel: host, Seeds: []string{"https://" + host + "/"},
		Issued: now, Lease: task.Lease{Host: host, Epoch: 1, Expires: now.Add(time.Hour)},
		Target: target,
	}
}

// seal signs t with the manager's key.
func (c *cluster) seal(t *task.Task) []byte {
	b, err := envelope.Seal(t, c.manager)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

// envelope returns a signed task for target (see task).
func (c *cluster) envelope(id string, target can.Point) []byte {
	return c.seal(c.task(id, target))
}

// insertAll inserts n tasks from random live members with workers in
// parallel and returns the average hops; it fails the test for an insert
// that did not land on the live owner of its target.
func (c *cluster) insertAll(ctx context.Context, prefix string, n int) float64 {
	t := c.t
	live := c.live()
	type job struct {
		id     string
		env    []byte
		target can.Point
		from   *member
	}
	jobs := make(chan job)
	var (
		mu        sync.Mutex
		totalHops int
		failures  []string
	)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				before := c.zoneMap()
				owner, hops, err := j.from.n.Insert(ctx, j.env, j.target)
				mu.Lock()
				totalHops += hops
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s: %v", j.id, err))
				} else if o := c.owner(j.target); o == nil || o.h.ID() != owner {
					// Whether zones changed hands meanwhile tells a stale
					// table from a move the test did not wait out.
					failures = append(failures, fmt.Sprintf("%s landed on %s, not the owner of %v (zones changed hands during the insert: %v)\nzones before:\n%szones after:\n%s",
						j.id, owner.ShortString(), j.target, before != c.zoneMap(), before, c.zoneMap()))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		p := c.randomPoint()
		jobs <- job{id, c.envelope(id, p), p, live[c.rng.IntN(len(live))]}
	}
	close(jobs)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d inserts failed, first: %s", len(failures), n, failures[0])
	}
	return float64(totalHops) / float64(n)
}

// countTasks returns how many live queues hold each task ID.
func (c *cluster) countTasks() map[string]int {
	seen := map[string]int{}
	for _, m := range c.live() {
		for _, id := range m.q.ids() {
			seen[id]++
		}
	}
	return seen
}

// waitTiled polls until the zones tile the space; it returns how long that
// took or fails the test after limit.
func (c *cluster) waitTiled(limit time.Duration) time.Duration {
	return c.waitUntil(limit, "zones do not tile", c.tiling)
}

// waitUntil polls every 100 ms until why returns ""; it returns how long
// that took, or dumps the overlay and fails the test with what and why's
// last answer after limit.
func (c *cluster) waitUntil(limit time.Duration, what string, why func() string) time.Duration {
	start := time.Now()
	var last string
	for time.Since(start) < limit {
		if last = why(); last == "" {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.dump()
	c.t.Fatalf("%s after %v: %s", what, limit, last)
	return 0
}

// dump logs every live peer's zones and neighbours and a point without an
// owner, if any, for a failed wait.
func (c *cluster) dump() {
	for _, m := range c.live() {
		c.t.Logf("%s: zones %v neighbours %v", m.h.ID(), m.n.Zones(), m.n.Neighbours())
	}
	for _, m := range c.members {
		if !m.alive.Load() {
			c.t.Logf("departed %s holding %v", m.h.ID(), m.n.Zones())
		}
	}
	for _, l := range c.auth.Leaves() {
		c.t.Logf("map: %q held by %s, epoch %d", l.Path, l.Holder, l.Epoch)
	}
	for range 2000 {
		if p := c.randomPoint(); c.owner(p) == nil {
			c.t.Logf("point %v has no owner", p)
			break
		}
	}
}

// neighboursComplete reports a pair of live peers whose zones abut but that
// do not list each other, or a peer listing one that is gone, or "".
func (c *cluster) neighboursComplete() string {
	live := c.live()
	for _, a := range live {
		nbrs := map[peer.ID]bool{}
		for _, id := range a.n.Neighbours() {
			nbrs[id] = true
		}
		for _, b := range live {
			if a != b && can.AbutsAny(a.n.Zones(), b.n.Zones()) && !nbrs[b.h.ID()] {
				return fmt.Sprintf("%s does not list its neighbour %s", a.h.ID().ShortString(), b.h.ID().ShortString())
			}
			delete(nbrs, b.h.ID())
		}
		for id := range nbrs {
			return fmt.Sprintf("%s lists %s, which is gone", a.h.ID().ShortString(), id.ShortString())
		}
	}
	return ""
}

// zoneMap describes which live peer holds which zones.
func (c *cluster) zoneMap() string {
	var b strings.Builder
	for _, m := range c.live() {
		zs := make([]string, 0, 1)
		for _, z := range m.n.Zones() {
			zs = append(zs, fmt.Sprint(z))
		}
		slices.Sort(zs) // a peer's zone list changes order as it merges
		fmt.Fprintf(&b, "%s %v\n", m.h.ID(), zs)
	}
	return b.String()
}

// zoneless names a live peer that holds no zone, or returns "".
func (c *cluster) zoneless() string {
	for _, m := range c.live() {
		if len(m.n.Zones()) == 0 {
			return fmt.Sprintf("%s holds no zone", m.h.ID().ShortString())
		}
	}
	return ""
}

// waitStable polls until the zones tile, every live peer holds a zone and
// neighbour sets are complete, and all of it has held, with no zone
// changing hands, for two heartbeat intervals. It returns how long
// the overlay took to reach the state that then held.
func (c *cluster) waitStable(limit time.Duration) time.Duration {
	start := time.Now()
	hold := 2 * c.cfg.Heartbeat
	if hold <= 0 {
		hold = 2 * DefaultHeartbeat
	}
	var (
		why, held string
		since     time.Time
	)
	for time.Since(start) < limit {
		if why = c.tiling(); why == "" {
			if why = c.zoneless(); why == "" {
				why = c.neighboursComplete()
			}
		}
		switch now := c.zoneMap(); {
		case why != "":
			held = ""
		case now != held:
			held, since = now, time.Now()
		case time.Since(since) >= hold:
			return since.Sub(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.dump()
	if why == "" {
		why = "zones still changing hands"
	}
	c.t.Fatalf("overlay not stable after %v: %s", limit, why)
	return 0
}

// path returns the path of a load-balanced insert that member m, the
// owner of p, starts: its certificate of the zone holding p.
func (c *cluster) path(m *member, p can.Point) [][]byte {
	m.n.mu.Lock()
	cert, ok := m.n.ownCertLocked(p)
	m.n.mu.Unlock()
	if !ok {
		c.t.Fatalf("%s holds no zone with %v", m.h.ID().ShortString(), p)
	}
	b, err := cert.MarshalBinary()
	if err != nil {
		c.t.Fatal(err)
	}
	return [][]byte{b}
}

// unproved lists the tasks queued at live peers without a proof that
// their peer may claim the task's lease (zonecert.Proof): every task that
// came through the overlay must carry one.
func (c *cluster) unproved() []string {
	var out []string
	for _, m := range c.live() {
		m.q.mu.Lock()
		for i, tk := range m.q.tasks {
			p, err := zonecert.DecodeProof(m.q.proofs[i])
			if err == nil {
				err = p.Verify(c.manager.GetPublic(), zonecert.Claim{Task: tk.ID, Epoch: tk.Lease.Epoch,
					Target: can.Clamp(tk.Target), Issued: tk.Issued, Claimer: m.h.ID()})
			}
			if err != nil {
				out = append(out, fmt.Sprintf("%s at %s: %v", tk.ID, m.h.ID(), err))
			}
		}
		m.q.mu.Unlock()
	}
	return out
}

// handoffs returns the proof that a balanced insert of e's task carries
// to chain's last member: the certificate of chain[0], owner of the
// task's target, and a hand-off from each member to the next, signed by
// the member passing it on, or by signer (a forgery) when it is set.
func (c *cluster) handoffs(e []byte, signer *member, chain ...*member) []byte {
	c.t.Helper()
	tk, err := envelope.Open(e, c.manager.GetPublic())
	if err != nil {
		c.t.Fatal(err)
	}
	owner := chain[0]
	owner.n.mu.Lock()
	cert, ok := owner.n.ownCertLocked(can.Clamp(tk.Target))
	owner.n.mu.Unlock()
	p := zonecert.OwnerProof(cert)
	if !ok {
		c.t.Fatalf("%s holds no zone with %v", owner.h.ID().ShortString(), tk.Target)
	}
	for i, m := range chain[1:] {
		by := chain[i]
		if signer != nil {
			by = signer
		}
		if p, err = p.Pass(tk.ID, tk.Lease.Epoch, m.h.ID(), by.h.Peerstore().PrivKey(by.h.ID())); err != nil {
			c.t.Fatal(err)
		}
	}
	b, err := p.MarshalBinary()
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}
