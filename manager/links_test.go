package manager

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/task"
)

// linkedHost starts a libp2p host listening on ip, connected to m: the
// manager sees it connect from ip.
func linkedHost(ctx context.Context, t *testing.T, m *Manager, ip string) *host.Host {
	t.Helper()
	h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/" + ip + "/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	return h
}

// stripedHosts starts a libp2p host on each of ips, connected to m
// (linkedHost), and makes them members of m's overlay in that order
// (stripes).
func stripedHosts(ctx context.Context, t *testing.T, m *Manager, ips ...string) []*host.Host {
	t.Helper()
	hs := make([]*host.Host, len(ips))
	for i, ip := range ips {
		hs[i] = linkedHost(ctx, t, m, ip)
	}
	stripes(t, m, hs...)
	return hs
}

// stripes makes hosts members of m's overlay through its zone map, each
// joining at a point further along the first axis, in order.
func stripes(t *testing.T, m *Manager, hosts ...*host.Host) {
	t.Helper()
	for i, h := range hosts {
		if a := m.members.Answer(h.ID(), entry.Request{Op: entry.OpJoin, Point: along(m, i, len(hosts))}); a.Refused != "" || len(a.Certs) == 0 {
			t.Fatalf("join of member %d answered %+v", i, a)
		}
	}
}

// along is the i-th of n join points spread along the first axis of m's
// space, in the middle of the others.
func along(m *Manager, i, n int) []float64 {
	p := make([]float64, m.sub.Options().Dim)
	for d := range p {
		p[d] = 0.5
	}
	p[0] = (float64(i) + 0.5) / float64(n)
	return p
}

// aims counts the members m aims n copies of task tk at, each under an
// ID of its own (copyOf), whatever the hash ranks first; it fails when no
// member can take them.
func aims(t *testing.T, m *Manager, tk channels.Task, n int) map[peer.ID]int {
	t.Helper()
	got := map[peer.ID]int{}
	for i := range n {
		aim, ok := m.dispatch.CheckAim(copyOf(tk, i))
		if !ok {
			t.Fatalf("no member to aim %s at", tk.ID)
		}
		got[aim.Direct]++
	}
	return got
}

// copyOf is task tk under the i-th ID of its own.
func copyOf(tk channels.Task, i int) channels.Task {
	tk.ID = fmt.Sprintf("%s/%d", tk.ID, i)
	return tk
}

// TestCheckersOfAnotherNetwork: a cheater's second identity on its own
// network (the same /24) is never chosen to check its result, and its
// claim of the check, should the envelope reach it, is refused and ends
// the check as misrouted; a volunteer of another network checks it. The
// peers are real libp2p hosts on loopback addresses of three /24s.
func TestCheckersOfAnotherNetwork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	hs := stripedHosts(ctx, t, m, "127.0.1.1", "127.0.1.2", "127.0.2.1")
	cheater, sybil, honest := hs[0], hs[1], hs[2]
	if _, linked := m.nets.Linked(sybil.ID().String(), []string{cheater.ID().String()}); !linked {
		t.Fatal("the manager did not see the sybil and the cheater connect from one network")
	}
	if _, err := m.AddSeeds([]string{"http://shop.example/"}); err != nil {
		t.Fatal(err)
	}
	chs, err := m.db.All(0)
	if err != nil || len(chs) != 1 {
		t.Fatalf("channels %v, %v", chs, err)
	}
	// The cheater's task, whose result is checked.
	orig := channels.Task{ID: chs[0].ID + "/1/0", Channel: chs[0].ID, Round: 1, Issued: clk.now(), Deadline: clk.now().Add(time.Hour),
		Spec: []byte("{}"), Host: "shop.example"}
	if err := m.db.Issue(chs[0].ID, 1, []channels.Task{orig}, clk.now()); err != nil {
		t.Fatal(err)
	}
	b := m.book
	id, err := b.IssueCheck(ctx, orig.ID, []string{"http://shop.example/a"}, []string{cheater.ID().String()})
	if err != nil {
		t.Fatal(err)
	}
	check, err := m.db.Task(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := aims(t, m, check, 20); got[honest.ID()] != 20 {
		t.Fatalf("check aimed at %v, want only the volunteer of another network %v", got, honest.ID())
	}

	// The sybil claims the check with its genuine envelope.
	g, ok, err := m.db.Grant(id, clk.now(), m.opts.leaseTimes(0))
	if err != nil || !ok {
		t.Fatalf("grant = %v, %v", ok, err)
	}
	spec, err := task.Decode(g.Spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: g.StartBy}
	spec.Target = []float64{0.5, 0.5}
	env, err := envelope.Seal(spec, m.key)
	if err != nil {
		t.Fatal(err)
	}
	// Its zones moved under the manager's view: it holds the check's
	// point now, and proves it.
	_, err = lease.Send(ctx, sybil, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: wholeSpaceProof(t, m, sybil.ID(), clk.now()), TaskID: id, Epoch: g.Epoch})
	if err == nil || !strings.Contains(err.Error(), "network of "+cheater.ID().String()) {
		t.Fatalf("sybil's claim = %v, want refused for its network", err)
	}
	ended, err := m.db.Task(id)
	if err != nil || ended.State != channels.TaskCancelled || ended.Reason != channels.ReasonMisrouted {
		t.Fatalf("check after the sybil's claim: %s %q, %v; want cancelled as misrouted", ended.State, ended.Reason, err)
	}
}

// TestCheckAimFollowsTheMap: a spot-check is aimed at a point the zone map
// routes to its checker now. The member registry keeps the zones a member
// had at its own last request; a join since can split them, and the
// centre of the zone a checker reported went to the joiner. Aimed there,
// the check reached the joiner, here the crawler it checks, and ended as
// misrouted.
func TestCheckAimFollowsTheMap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	checker := linkedHost(ctx, t, m, "127.0.1.1")
	crawler := linkedHost(ctx, t, m, "127.0.2.1")
	at := func(x float64) []float64 {
		p := along(m, 0, 1)
		p[0] = x
		return p
	}
	// The checker holds the whole space, its point below the middle; the
	// crawler's join splits it along the first axis and takes the upper
	// half, the middle included.
	for _, j := range []struct {
		h *host.Host
		x float64
	}{{checker, 0.3}, {crawler, 0.7}} {
		if a := m.members.Answer(j.h.ID(), entry.Request{Op: entry.OpJoin, Point: at(j.x)}); a.Refused != "" {
			t.Fatalf("join answered %+v", a)
		}
	}
	aim, ok := m.dispatch.CheckAim(channels.Task{ID: channels.CheckPrefix + "x", Avoid: []string{crawler.ID().String()}})
	if !ok || aim.Direct != checker.ID() {
		t.Fatalf("check aimed at %v (%v), want the checker %s", aim.Direct, ok, checker.ID())
	}
	if owner, _ := m.zones.Owner(aim.Target); owner != checker.ID() {
		t.Fatalf("check aimed at %v, which the map routes to %s (the crawler is %s), not to the checker", aim.Target, owner, crawler.ID())
	}
}

// loadEach gives each of owners n open tasks the manager sent it and it
// queued, and has m's dispatcher count them.
func loadEach(ctx context.Context, t *testing.T, m *Manager, clk *clock, n int, owners ...*host.Host) {
	t.Helper()
	chs, err := m.AddSeeds([]string{"http://shop.example/"})
	if err != nil || len(chs) != 1 {
		t.Fatalf("channels %v, %v", chs, err)
	}
	var tasks []channels.Task
	for i := range n * len(owners) {
		tasks = append(tasks, channels.Task{ID: fmt.Sprintf("%s/1/%d", chs[0].ID, i), Channel: chs[0].ID, Round: 1, Issued: clk.now(), Deadline: clk.now().Add(time.Hour),
			Spec: []byte("{}"), Host: "shop.example"})
	}
	if err := m.db.Issue(chs[0].ID, 1, tasks, clk.now()); err != nil {
		t.Fatal(err)
	}
	for i, tk := range tasks {
		if err := m.db.MarkSent(tk.ID, owners[i/n].ID().String()); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.dispatch.Send(ctx); err != nil { // counts the load
		t.Fatal(err)
	}
}

// checkOf is a check of crawler's result.
func checkOf(crawler *host.Host) channels.Task {
	return channels.Task{ID: channels.CheckPrefix + "c", Avoid: []string{crawler.ID().String()}}
}

// TestCheckAimFillsTheIdle: a spot-check goes to the less loaded of its
// two candidates, so checks go to the members with the fewest open tasks
// (those placement by round trip left idle). By the hash alone a member
// with thirty queued tasks got a third of them.
func TestCheckAimFillsTheIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	hs := stripedHosts(ctx, t, m, "127.0.1.1", "127.0.2.1", "127.0.3.1", "127.0.4.1")
	crawler, busy, idle := hs[0], hs[1], hs[2:]
	const queued = 30
	loadEach(ctx, t, m, clk, queued, busy)
	// Each check adds to its checker's load: until an idle member has
	// as many as busy (not before the 30th check), busy is the more
	// loaded of any two.
	got := aims(t, m, checkOf(crawler), queued-1)
	if got[busy.ID()] != 0 || got[idle[0].ID()]+got[idle[1].ID()] != queued-1 {
		t.Fatalf("checks aimed %v; want none at the busy member %s", got, busy.ID())
	}
}

// TestCheckAimIdleTwinDrawsOnlyItsDraws: a member that keeps idle to draw
// its twin's checks gets a check only when the hash makes it one of the
// two candidates (about two in five here), not every check, however
// loaded the others are.
func TestCheckAimIdleTwinDrawsOnlyItsDraws(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManager(t, t.TempDir(), clk)
	hs := stripedHosts(ctx, t, m, "127.0.1.1", "127.0.2.1", "127.0.3.1", "127.0.4.1", "127.0.5.1", "127.0.6.1")
	crawler, twin, others := hs[0], hs[1], hs[2:]
	const queued, checks = 30, 29
	loadEach(ctx, t, m, clk, queued, others...)
	got := aims(t, m, checkOf(crawler), checks)
	drawn := 0 // the checks whose two candidates include the twin
	for i := range checks {
		id := copyOf(checkOf(crawler), i).ID
		score := func(h *host.Host) uint64 {
			sum := sha256.Sum256([]byte(id + "\x00" + h.ID().String()))
			return binary.BigEndian.Uint64(sum[:8])
		}
		above := 0
		for _, o := range others {
			if score(o) > score(twin) {
				above++
			}
		}
		if above < 2 {
			drawn++
		}
	}
	if got[twin.ID()] != drawn || drawn == checks {
		t.Fatalf("the idle twin got %d of %d checks, drawn as a candidate for %d", got[twin.ID()], checks, drawn)
	}
}
