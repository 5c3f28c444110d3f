package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	// Test-only: the client's bbolt queue, to show the seen set outliving
	// a restart end to end. The node itself knows only admission.SeenSet.
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// send opens an insert stream from h to peer to, as any overlay member
// (or anyone) can, and returns the answer.
func send(ctx context.Context, h *host.Host, to peer.AddrInfo, ins *wire.Insert) (*wire.InsertResponse, error) {
	h.Peerstore().AddAddrs(to.ID, to.Addrs, time.Hour)
	s, err := h.NewStream(ctx, to.ID, wire.InsertProtocol)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var resp wire.InsertResponse
	if err := wire.NewConn(s, wire.MaxInsertResponseSize).Exchange(ctx, ins, wire.MaxInsertSize, &resp); err != nil {
		s.Reset()
		return nil, err
	}
	return &resp, nil
}

// outsider returns a libp2p host that is no member of the overlay.
func outsider(ctx context.Context, t *testing.T) *host.Host {
	h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestAdmissionRefusals sends genuine, correctly signed tasks that a peer
// must still refuse, each with the reason's sentinel and counter, next to
// the ones it must take. Three peers: A holds x < 0.5, B x ≥ 0.5 and
// y ≥ 0.5, C x ≥ 0.5 and y < 0.5.
func TestAdmissionRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond})
	a := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	b := c.addAt(ctx, can.Point{0.75, 0.75, 0.5})
	cc := c.addAt(ctx, can.Point{0.75, 0.25, 0.5})
	c.waitStable(30 * time.Second)
	tA, tB, tC := can.Point{0.25, 0.5, 0.5}, can.Point{0.75, 0.75, 0.5}, can.Point{0.75, 0.25, 0.5}
	for _, x := range []struct {
		m *member
		p can.Point
	}{{a, tA}, {b, tB}, {cc, tC}} {
		if c.owner(x.p) != x.m {
			t.Fatalf("%v is not held by the expected peer; zones:\n%s", x.p, c.zoneMap())
		}
	}
	out := outsider(ctx, t)
	now := time.Now()
	// cert is member m's certificate holding point p, as the path of a
	// balanced insert carries it.
	cert := func(m *member, p can.Point) []byte { return c.path(m, p)[0] }
	pB, pC, pA := cert(b, tB), cert(cc, tC), cert(a, tA)

	// insert routes env from A to target; raw sends it from one host to
	// a member as given.
	insert := func(env []byte, target can.Point) error {
		_, _, err := a.n.Insert(ctx, env, target)
		return err
	}
	raw := func(from *host.Host, to *member, ins *wire.Insert) error {
		resp, err := send(ctx, from, to.h.AddrInfo(), ins)
		switch {
		case err != nil:
			return err
		case resp.Error != "":
			return refusal(resp.Error)
		case !resp.Accepted:
			return fmt.Errorf("neither accepted nor refused")
		}
		return nil
	}
	tests := []struct {
		name string
		task func(*task.Task) // changes the task before it is signed
		// before runs first and must succeed; run sends the envelope.
		before, run func(env []byte) error
		want        error   // nil: taken
		at          *member // where it is taken or refused
		counter     func(Stats) int64
	}{
		{name: "genuine", run: func(e []byte) error { return insert(e, tB) }, at: b},
		{name: "no lease", task: func(t *task.Task) { t.Lease = task.Lease{} },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrNoLease, at: b, counter: func(s Stats) int64 { return s.Expired }},
		{name: "lease ended", task: func(t *task.Task) { t.Lease.Expires = now.Add(-time.Second) },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrNoLease, at: b, counter: func(s Stats) int64 { return s.Expired }},
		{name: "issued in 1970 with a live lease", task: func(t *task.Task) { t.Issued = time.Unix(0, 0).UTC() },
			run: func(e []byte) error { return insert(e, tB) }, at: b},
		{name: "issued ahead, within the clock skew", task: func(t *task.Task) { t.Issued = now.Add(admission.MaxClockSkew / 2) },
			run: func(e []byte) error { return insert(e, tB) }, at: b},
		{name: "issued in the future", task: func(t *task.Task) { t.Issued = now.Add(admission.MaxClockSkew + time.Minute) },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrIssuedAhead, at: b, counter: func(s Stats) int64 { return s.IssuedAhead }},
		{name: "no signed target", task: func(t *task.Task) { t.Target = nil },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrTargetMismatch, at: b, counter: func(s Stats) int64 { return s.Mistargeted }},
		{name: "signed target of another dimension", task: func(t *task.Task) { t.Target = t.Target[:2] },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrTargetMismatch, at: b, counter: func(s Stats) int64 { return s.Mistargeted }},
		{name: "sent to a point of another zone than the signed one", task: func(t *task.Task) { t.Target = tC },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrTargetMismatch, at: b, counter: func(s Stats) int64 { return s.Mistargeted }},
		{name: "signed target outside the box, compared clamped", task: func(t *task.Task) { t.Target = can.Point{1.5, 0.75, 0.5} },
			run: func(e []byte) error { return insert(e, can.Point{1, 0.75, 0.5}) }, at: b},
		{name: "seen before", before: func(e []byte) error { return insert(e, tB) },
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrSeen, at: b, counter: func(s Stats) int64 { return s.Replayed }},
		{name: "seen before, through another entry peer",
			before: func(e []byte) error { return insert(e, tB) },
			run:    func(e []byte) error { _, _, err := cc.n.Insert(ctx, e, tB); return err }, want: admission.ErrSeen, at: b, counter: func(s Stats) int64 { return s.Replayed }},
		{name: "seen before, then sent as load-balanced",
			before: func(e []byte) error {
				return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}, Proof: c.handoffs(e, nil, b, cc)})
			},
			run: func(e []byte) error {
				return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}, Proof: c.handoffs(e, nil, b, cc)})
			},
			want: admission.ErrSeen, at: cc, counter: func(s Stats) int64 { return s.Replayed }},
		{name: "balanced by its target's owner",
			run: func(e []byte) error {
				return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}, Proof: c.handoffs(e, nil, b, cc)})
			}, at: cc},
		{name: "balanced on by a second peer (TTL 3)",
			run: func(e []byte) error {
				return raw(cc.h, a, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB, pC}, Proof: c.handoffs(e, nil, b, cc, a)})
			}, at: a},
		{name: "balanced without a proof",
			run: func(e []byte) error {
				return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "balanced on by the owner's neighbour with a hand-off from the owner it signed itself",
			run: func(e []byte) error {
				return raw(cc.h, a, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB, pC}, Proof: c.handoffs(e, cc, b, cc, a)})
			},
			want: admission.ErrMisaimed, at: a, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "balanced on with the proof it came with, not passed on to the receiver",
			run: func(e []byte) error {
				return raw(cc.h, a, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB, pC}, Proof: c.handoffs(e, nil, b, cc)})
			},
			want: admission.ErrMisaimed, at: a, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "balanced without a path",
			run:  func(e []byte) error { return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true}) },
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "balanced by a peer showing the owner's certificate",
			run: func(e []byte) error {
				return raw(a.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "balanced by a peer showing its own zone, not the target's",
			run: func(e []byte) error {
				return raw(a.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pA}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "a path naming the receiver",
			run: func(e []byte) error {
				return raw(a.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB, pC, pA}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "a forged certificate in the path",
			run: func(e []byte) error {
				forged := slices.Clone(pB)
				forged[len(forged)-3] ^= 1
				return raw(b.h, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{forged}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "misaimed: balanced by a host outside the overlay",
			run: func(e []byte) error {
				return raw(out, cc, &wire.Insert{Envelope: e, Target: tB, Lbi: true, Path: [][]byte{pB}})
			},
			want: admission.ErrMisaimed, at: cc, counter: func(s Stats) int64 { return s.Misaimed }},
		{name: "misaimed: sent straight to a peer with a point of its zone",
			run:  func(e []byte) error { return raw(a.h, cc, &wire.Insert{Envelope: e, Target: tC}) },
			want: admission.ErrTargetMismatch, at: cc, counter: func(s Stats) int64 { return s.Mistargeted }},
		{name: "misaimed: balanced with a point of the receiver's zone",
			run: func(e []byte) error {
				return raw(a.h, cc, &wire.Insert{Envelope: e, Target: tC, Lbi: true, Path: [][]byte{pA}})
			},
			want: admission.ErrTargetMismatch, at: cc, counter: func(s Stats) int64 { return s.Mistargeted }},
		{name: "sent straight to a non-owner with its signed target: routed on",
			run: func(e []byte) error { return raw(out, cc, &wire.Insert{Envelope: e, Target: tB}) }, at: b},
		{name: "recorded before queueing: a failed enqueue is not retried",
			before: func(e []byte) error {
				b.q.mu.Lock()
				b.q.fail = errors.New("disk full")
				b.q.mu.Unlock()
				if err := insert(e, tB); err == nil || !strings.Contains(err.Error(), "disk full") {
					return fmt.Errorf("first insert: %v, want the queue's failure", err)
				}
				return nil
			},
			run: func(e []byte) error { return insert(e, tB) }, want: admission.ErrSeen, at: b, counter: func(s Stats) int64 { return s.Replayed }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := c.task(fmt.Sprintf("case-%d", i), tB)
			if tt.task != nil {
				tt.task(tk)
			}
			env := c.seal(tk)
			if tt.before != nil {
				if err := tt.before(env); err != nil {
					t.Fatalf("before: %v", err)
				}
			}
			stats := tt.at.n.Stats()
			queued := c.countTasks()[tk.ID]
			err := tt.run(env)
			after := tt.at.n.Stats()
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == nil:
				if got := c.countTasks()[tk.ID]; got != 1 || !slices.Contains(tt.at.q.ids(), tk.ID) {
					t.Fatalf("task on %d peers, want only on %s", got, tt.at.h.ID().ShortString())
				}
			case !errors.Is(err, tt.want):
				t.Fatalf("err = %v, want %v", err, tt.want)
			default:
				if got := c.countTasks()[tk.ID]; got != queued {
					t.Fatalf("task on %d peers after the refusal, %d before", got, queued)
				}
				if d := tt.counter(after) - tt.counter(stats); d != 1 {
					t.Fatalf("refusal counted %d times at %s, want once; stats %+v", d, tt.at.h.ID().ShortString(), after)
				}
				if after.Accepted != stats.Accepted {
					t.Fatalf("Accepted went from %d to %d", stats.Accepted, after.Accepted)
				}
			}
		})
	}
}

// boltQueue is the client's bbolt queue in the node's terms, as
// app/nodequeue.go adapts it (without its task manager).
type boltQueue struct{ q *queue.Queue }

var (
	_ Queue             = boltQueue{}
	_ admission.SeenSet = boltQueue{}
)

func (b boltQueue) Enqueue(_ context.Context, t *task.Task, env, proof []byte) error {
	return b.q.Enqueue(env, proof, t, time.Now())
}
func (b boltQueue) Load() (int, int64) { n, _ := b.q.Len(); return n, 0 }
func (b boltQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	return nil, nil, nil
}
func (b boltQueue) Seen(_ context.Context, id string, expires time.Time) (bool, error) {
	return b.q.Seen(id, expires, time.Now())
}

// TestSeenSurvivesRestart: a one-peer overlay over a bbolt queue takes a
// task; restarted over the reopened file (new host, same data), it
// refuses the task as seen and takes a new one.
func TestSeenSurvivesRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: time.Hour})
	path := filepath.Join(t.TempDir(), "queue.db")
	target := can.Point{0.5, 0.5, 0.5}
	env := c.envelope("once", target)
	start := func() (*Node, *queue.Queue) {
		q, err := queue.Open(path, queue.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h := outsider(ctx, t)
		n, err := New(h, boltQueue{q}, func() Config { cfg := c.cfg; cfg.Point = target; cfg.Authority = c.auth.For(h.ID()); return cfg }())
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Join(ctx); err != nil {
			t.Fatal(err)
		}
		return n, q
	}
	n, q := start()
	if _, _, err := n.Insert(ctx, env, target); err != nil {
		t.Fatalf("first run: %v", err)
	}
	n.Close()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	n, q = start()
	defer q.Close()
	if _, _, err := n.Insert(ctx, env, target); !errors.Is(err, admission.ErrSeen) {
		t.Fatalf("after the restart: %v, want %v", err, admission.ErrSeen)
	}
	if st := n.Stats(); st.Replayed != 1 || st.Accepted != 0 {
		t.Fatalf("stats after the restart %+v, want one replay refused", st)
	}
	if _, _, err := n.Insert(ctx, c.envelope("new", target), target); err != nil {
		t.Fatalf("a new task after the restart: %v", err)
	}
	if n, _ := q.Len(); n != 2 {
		t.Fatalf("%d tasks queued, want 2 (once, new)", n)
	}
}

// TestHandoverAdmission: an heir takes only tasks whose lease is live,
// that were not issued in the future and that it has not seen, and only
// from a peer whose zone the manager has since certified to it; not
// their targets: it holds the zone.
func TestHandoverAdmission(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond, HandoverPause: -1})
	a := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	b := c.addAt(ctx, can.Point{0.75, 0.5, 0.5})
	c.waitStable(30 * time.Second)
	tA, tB := can.Point{0.25, 0.5, 0.5}, can.Point{0.75, 0.5, 0.5}
	now := time.Now()
	good := c.envelope("good", tB)
	b.n.mu.Lock()
	var bCerts [][]byte
	for _, c := range b.n.own {
		raw, _ := c.MarshalBinary()
		bCerts = append(bCerts, raw)
	}
	b.n.mu.Unlock()

	// Handovers refused whole: tasks from a host outside the overlay
	// showing B's certificates, and from B, whose zone the manager has
	// not given A.
	out := outsider(ctx, t)
	for _, h := range []struct {
		name string
		from *host.Host
		m    *wire.Handover
	}{
		{"from outside the overlay, with another's certificates", out, &wire.Handover{Certs: bCerts, Queued: [][]byte{good}}},
		{"from a neighbour still holding its zone", b.h, &wire.Handover{Certs: bCerts, Queued: [][]byte{good}}},
	} {
		out.Peerstore().AddAddrs(a.h.ID(), a.h.Addrs(), time.Hour)
		b.h.Peerstore().AddAddrs(a.h.ID(), a.h.Addrs(), time.Hour)
		s, err := h.from.NewStream(ctx, a.h.ID(), wire.HandoverProtocol)
		if err != nil {
			t.Fatal(err)
		}
		var resp wire.HandoverResponse
		err = wire.NewConn(s, wire.MaxHandoverResponseSize).Exchange(ctx, h.m, wire.MaxHandoverSize, &resp)
		s.Close()
		if err != nil || resp.Accepted {
			t.Fatalf("handover %s: accepted %v, err %v; want a refusal", h.name, resp.Accepted, err)
		}
	}
	if st := a.n.Stats(); st.HandoversRefused != 2 || st.HandedIn != 0 || len(a.q.ids()) != 0 {
		t.Fatalf("after two bad handovers: stats %+v, queue %v", st, a.q.ids())
	}

	// A genuine leave handing over tasks that must not all be taken.
	seenTask := c.envelope("seen", tB)
	if _, _, err := a.n.Insert(ctx, c.envelope("seen", tA), tA); err != nil {
		t.Fatal(err) // a copy A took itself, with its own target
	}
	mk := func(id string, change func(*task.Task)) (*task.Task, []byte) {
		tk := c.task(id, tB)
		change(tk)
		return tk, c.seal(tk)
	}
	hand := map[string]func(*task.Task){
		"good":      func(*task.Task) {},
		"elsewhere": func(tk *task.Task) { tk.Target = can.Point{0.1, 0.9, 0.9} }, // in A's zone: no matter
		"expired":   func(tk *task.Task) { tk.Lease.Expires = now.Add(-time.Minute) },
		"unleased":  func(tk *task.Task) { tk.Lease = task.Lease{} },
		"ahead":     func(tk *task.Task) { tk.Issued = now.Add(time.Hour) },
	}
	for id, change := range hand {
		tk, env := mk(id, change)
		if id == "good" {
			env = good
		}
		b.q.Enqueue(ctx, tk, env, nil)
	}
	b.q.Enqueue(ctx, &task.Task{ID: "seen"}, seenTask, nil)
	if err := b.n.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	got := a.q.ids()
	for _, want := range []string{"good", "elsewhere"} {
		if !slices.Contains(got, want) {
			t.Fatalf("heir holds %v, want %s among them", got, want)
		}
	}
	if len(got) != 3 {
		t.Fatalf("heir holds %v, want its own task seen, good and elsewhere", got)
	}
	st := a.n.Stats()
	want := Stats{Counts: admission.Counts{Expired: 2, IssuedAhead: 1, Replayed: 1}, Accepted: 1, HandedIn: 2, HandoversRefused: 2}
	if st.Accepted != want.Accepted || st.Expired != want.Expired || st.IssuedAhead != want.IssuedAhead ||
		st.Replayed != want.Replayed || st.HandedIn != want.HandedIn || st.HandoversRefused != want.HandoversRefused {
		t.Fatalf("heir stats %+v, want %+v", st, want)
	}
}

// TestRefusedTaskTakenUnderNextLease: a peer that admitted a task and then
// could not queue it (its queue full) refuses a replay of that delivery,
// but takes the task when the manager sends it again under the host's
// next lease. Keyed by task ID alone, the seen record refused every later
// send, and the manager's retries never ended.
func TestRefusedTaskTakenUnderNextLease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: time.Hour})
	target := can.Point{0.5, 0.5, 0.5}
	m := c.addAt(ctx, target)
	tk := c.task("retried", target)
	first := c.seal(tk)

	m.q.fail = errors.New("queue full")
	if _, _, err := m.n.Insert(ctx, first, target); err == nil || !strings.Contains(err.Error(), "queue full") {
		t.Fatalf("insert into a full queue: %v, want it refused as full", err)
	}
	if _, _, err := m.n.Insert(ctx, first, target); !errors.Is(err, admission.ErrSeen) {
		t.Fatalf("replay of the refused delivery: %v, want %v", err, admission.ErrSeen)
	}
	tk.Lease.Epoch++
	if _, _, err := m.n.Insert(ctx, c.seal(tk), target); err != nil {
		t.Fatalf("the task under the next lease: %v, want it queued", err)
	}
	if got := c.countTasks()["retried"]; got != 1 {
		t.Fatalf("task queued %d times, want once", got)
	}
}
