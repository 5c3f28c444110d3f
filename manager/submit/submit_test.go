package submit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/p2p/node/nodetest"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
)

var quiet = slog.New(slog.DiscardHandler)

type memQueue struct {
	mu  sync.Mutex
	ids []string
}

func (q *memQueue) Enqueue(_ context.Context, t *task.Task, _, _ []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, t.ID)
	return nil
}
func (q *memQueue) Load() (int, int64) { q.mu.Lock(); defer q.mu.Unlock(); return len(q.ids), 0 }
func (q *memQueue) Drain(context.Context) ([][]byte, [][]byte, error) {
	return nil, nil, nil
}
func (q *memQueue) got() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.ids...)
}

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestSubmitReachesOverlayPeer(t *testing.T) {
	ctx := context.Background()
	key, _, _ := crypto.GenerateEd25519Key(nil)
	other, _, _ := crypto.GenerateEd25519Key(nil)
	mh := newHost(t)
	s := New(mh, Options{})
	if _, err := s.Submit(ctx, s.Aim(ctx, "a.example"), []byte("x")); !errors.Is(err, ErrNoEntryPeer) {
		t.Fatalf("Submit without peers = %v", err)
	}
	ph := newHost(t)
	q := &memQueue{}
	auth := nodetest.New(key, 2, time.Minute)
	n, err := node.New(ph, q, node.Config{Point: can.Point{0.5, 0.5}, Dim: 2, Manager: key.GetPublic(), Logger: quiet, Authority: auth.For(ph.ID())})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Join(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mh.Connect(ctx, ph.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	// Identify tells the manager which protocols the peer speaks.
	deadline := time.Now().Add(10 * time.Second)
	for len(s.EntryPeers()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(s.EntryPeers()) != 1 {
		t.Fatalf("entry peers %v", s.EntryPeers())
	}
	s = New(mh, Options{Dim: 2})
	tk := &task.Task{ID: "a.example/1/0", Channel: "a.example", Seeds: []string{"http://a.example/"},
		Issued: time.Now(), Lease: task.Lease{Host: "a.example", Epoch: 1, Expires: time.Now().Add(time.Hour)},
		Target: s.Aim(ctx, "a.example").Target}
	good, _ := envelope.Seal(tk, key)
	forged, _ := envelope.Seal(tk, other)
	tests := []struct {
		name    string
		env     []byte
		wantErr bool
	}{
		{"signed by the manager", good, false},
		{"forged", forged, true},
		{"unsigned", []byte(`{"id":"x","seeds":["http://a/"]}`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner, err := s.Submit(ctx, s.Aim(ctx, "a.example"), tt.env)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Submit = %v, %v", owner, err)
			}
			if err == nil && owner != ph.ID() {
				t.Fatalf("owner %s, want %s", owner, ph.ID())
			}
		})
	}
	if got := q.got(); len(got) != 1 || got[0] != tk.ID {
		t.Fatalf("queued %v", got)
	}
}

type flakyLocator struct{ calls int }

func (l *flakyLocator) Locate(context.Context, string) (can.Point, error) {
	l.calls++
	if l.calls == 1 {
		return can.Point{0.25, 1.5}, nil
	}
	return nil, errors.New("too few peers answered")
}

func TestPoint(t *testing.T) {
	l := &flakyLocator{}
	s := New(newHost(t), Options{Dim: 2, Locator: l})
	hashed := can.HashPoint("b.example", 2)
	tests := []struct {
		name, host string
		want       can.Point
	}{
		{"located and clamped", "a.example", can.Point{0.25, 1}},
		{"locate fails: cached point kept", "a.example", can.Point{0.25, 1}},
		{"never located: hash", "b.example", hashed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Point(context.Background(), tt.host)
			if len(got) != 2 || got[0] != tt.want[0] || got[1] != tt.want[1] {
				t.Fatalf("Point = %v, want %v", got, tt.want)
			}
		})
	}
	for _, v := range hashed {
		if v < 0 || v >= 1 {
			t.Fatalf("hash point %v outside [0,1)", hashed)
		}
	}
	if h2 := can.HashPoint("c.example", 2); h2[0] == hashed[0] {
		t.Fatal("two hosts hashed to the same coordinate")
	}
}

// placesAfter fails to locate until it is called for the n-th time.
type placesAfter struct{ n, calls int }

func (l *placesAfter) Locate(context.Context, string) (can.Point, error) {
	l.calls++
	if l.calls < l.n {
		return nil, errors.New("3 overlay peers to measure from, need 4")
	}
	return can.Point{0.25, 0.75}, nil
}

// TestReadyWaitsForPlacement: a host's task waits while the Locator cannot
// place it, is ready once it does (and from then on without asking
// again), and goes out at its hash after PlaceWait of failures.
func TestReadyWaitsForPlacement(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ctx := context.Background()

	l := &placesAfter{n: 3}
	s := New(newHost(t), Options{Dim: 2, Locator: l, Now: clock})
	if s.Ready(ctx, "a.example") || s.Ready(ctx, "a.example") {
		t.Fatal("ready before the host was located")
	}
	if !s.Ready(ctx, "a.example") {
		t.Fatal("not ready once located")
	}
	if !s.Ready(ctx, "a.example") || l.calls != 3 {
		t.Fatalf("a located host asked the Locator again (%d calls)", l.calls)
	}
	if p, ok := s.Cached("a.example"); !ok || p[0] != 0.25 {
		t.Fatalf("located point not kept: %v", p)
	}

	never := New(newHost(t), Options{Dim: 2, Locator: &placesAfter{n: 1 << 30}, Now: clock})
	if never.Ready(ctx, "b.example") {
		t.Fatal("ready at the first failure")
	}
	now = now.Add(PlaceWait - time.Second)
	if never.Ready(ctx, "b.example") {
		t.Fatal("ready before PlaceWait of failures")
	}
	now = now.Add(time.Second)
	if !never.Ready(ctx, "b.example") {
		t.Fatal("still held after PlaceWait of failures")
	}

	if !New(newHost(t), Options{Dim: 2}).Ready(ctx, "c.example") {
		t.Fatal("held without a Locator")
	}
}

// TestSubmitUncertain: an entry peer that reads the insert and breaks the
// stream without an answer may have queued the task. Submit says so and
// does not try the next entry peer, which could queue a second copy.
func TestSubmitUncertain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mh := newHost(t)
	var (
		mu    sync.Mutex
		reads int
	)
	for range 3 {
		ph := newHost(t)
		ph.SetStreamHandler(wire.InsertProtocol, func(s network.Stream) {
			var ins wire.Insert
			if err := wire.NewConn(s, wire.MaxInsertSize).Read(ctx, &ins); err == nil {
				mu.Lock()
				reads++
				mu.Unlock()
			}
			s.Reset()
		})
		if err := mh.Connect(ctx, ph.AddrInfo()); err != nil {
			t.Fatal(err)
		}
	}
	s := New(mh, Options{Dim: 2})
	for len(s.EntryPeers()) < 3 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond) // identify names the protocols
	}
	_, err := s.Submit(ctx, s.Aim(ctx, "a.example"), []byte("signed task"))
	if !errors.Is(err, ErrUncertain) {
		t.Fatalf("Submit = %v, want ErrUncertain", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if reads != 1 {
		t.Fatalf("%d entry peers read the task, want 1", reads)
	}
}

// TestSubmitTriesOwnerFirst: with Options.Owner, the manager's zone map
// names the holder of a task's target, and the insert goes to it first:
// over ten tasks for B's zone, A never forwards one. Chosen at random
// among the entry peers, A would take about half of them and route them
// on.
func TestSubmitTriesOwnerFirst(t *testing.T) {
	ctx := context.Background()
	key, _, _ := crypto.GenerateEd25519Key(nil)
	auth := nodetest.New(key, 2, time.Minute)
	mh := newHost(t)
	var nodes []*node.Node
	for _, p := range []can.Point{{0.25, 0.5}, {0.75, 0.5}} {
		ph := newHost(t)
		n, err := node.New(ph, &memQueue{}, node.Config{Point: p, Dim: 2, Manager: key.GetPublic(), Logger: quiet, Authority: auth.For(ph.ID())})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Join(ctx); err != nil {
			t.Fatal(err)
		}
		if err := mh.Connect(ctx, ph.AddrInfo()); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	a, b := nodes[0], nodes[1]
	owner := func(p can.Point) (peer.ID, bool) {
		for _, l := range auth.Leaves() {
			if l.Zone(2).Contains(p) {
				id, err := peer.Decode(string(l.Holder))
				return id, err == nil
			}
		}
		return "", false
	}
	s := New(mh, Options{Dim: 2, Owner: owner, Tries: 1})
	deadline := time.Now().Add(10 * time.Second)
	for len(s.EntryPeers()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	target := can.Point{0.75, 0.5}
	for i := range 10 {
		id := fmt.Sprintf("b.example/%d/0", i)
		tk := &task.Task{ID: id, Channel: "b.example", Seeds: []string{"http://b.example/"}, Issued: time.Now(),
			Lease: task.Lease{Host: "b.example", Epoch: 1, Expires: time.Now().Add(time.Hour)}, Target: target}
		env, _ := envelope.Seal(tk, key)
		got, err := s.Submit(ctx, Aim{Target: target}, env)
		if err != nil || got != b.ID() {
			t.Fatalf("task %d: queued at %s, %v; want B", i, got, err)
		}
	}
	if f := a.Stats().Forwarded; f != 0 {
		t.Fatalf("A forwarded %d of the tasks for B's zone, want none", f)
	}
}
