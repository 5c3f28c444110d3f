package handover

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/p2ptest"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

// heir answers handovers on h: it takes every task but those decline
// names, which it declines, and records what it was sent and the
// certificates that came with it; broken resets every stream.
type heir struct {
	mu      sync.Mutex
	taken   []string
	certs   int
	decline string
}

func (r *heir) serve(t *testing.T, h host.Host, manager crypto.PubKey, broken bool) {
	h.SetStreamHandler(wire.HandoverProtocol, func(s network.Stream) {
		if broken {
			s.Reset()
			return
		}
		defer s.Close()
		check := func(m *wire.Handover) error {
			r.mu.Lock()
			r.certs = len(m.Certs)
			r.mu.Unlock()
			return nil
		}
		wire.ReceiveHandover(context.Background(), wire.NewConn(s, wire.MaxHandoverSize), check, func(env []byte) wire.Taken {
			tk, err := envelope.Open(env, manager)
			if err != nil {
				t.Errorf("heir sent a task that does not open: %v", err)
				return wire.Dropped
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if tk.ID == r.decline {
				return wire.Declined
			}
			r.taken = append(r.taken, tk.ID)
			return wire.Queued
		})
	})
}

// TestHand: each heir is handed the tasks aimed into its zones, the
// running ones too, with the certificates; what it declines, what no
// heir's zones hold, what does not open and what an heir that fails was
// to take come back.
func TestHand(t *testing.T) {
	mk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaver, a, b := p2ptest.Host(t), p2ptest.Host(t), p2ptest.Host(t)
	for _, h := range []host.Host{a, b} {
		leaver.Peerstore().AddAddrs(h.ID(), h.Addrs(), time.Minute)
	}
	ra, rb := &heir{decline: "a-2"}, &heir{}
	ra.serve(t, a, mk.GetPublic(), false)
	rb.serve(t, b, mk.GetPublic(), true)
	left := can.Zone{Lo: can.Point{0, 0}, Hi: can.Point{0.5, 1}}
	right := can.Zone{Lo: can.Point{0.5, 0}, Hi: can.Point{1, 1}}
	heirs := []Heir{{ID: b.ID(), Zones: []can.Zone{right}}, {ID: a.ID(), Zones: []can.Zone{left}}}
	seal := func(id string, p can.Point) []byte {
		env, err := envelope.Seal(&task.Task{ID: id, Seeds: []string{"https://" + id + ".example/"}, Target: p}, mk)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	queued := [][]byte{seal("a-1", can.Point{0.2, 0.5}), seal("b-1", can.Point{0.7, 0.5}), seal("a-2", can.Point{0.4, 0.1}), []byte("not an envelope")}
	running := [][]byte{seal("a-3", can.Point{0.1, 0.9}), seal("flat", can.Point{0.2})}
	cert, err := zonecert.Issue(can.Leaf{Path: can.Path("0"), Holder: can.PeerID(leaver.ID().String()), Epoch: 1, Expiry: time.Now().Add(time.Minute)}, mk)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	back, err := Hand(ctx, leaver, heirs, []zonecert.Cert{cert}, queued, running, Config{Manager: mk.GetPublic(), Dim: 2})
	if err == nil {
		t.Error("an heir that resets its stream reported no error")
	}
	ra.mu.Lock()
	if !slices.Equal(ra.taken, []string{"a-1", "a-3"}) || ra.certs != 1 {
		t.Errorf("heir A took %v with %d certificates; want a-1, a-3 (a-2 declined) with 1", ra.taken, ra.certs)
	}
	ra.mu.Unlock()
	var got []string
	for _, env := range back {
		if tk, err := envelope.Open(env, mk.GetPublic()); err == nil {
			got = append(got, tk.ID)
		} else {
			got = append(got, string(env))
		}
	}
	slices.Sort(got)
	if want := []string{"a-2", "b-1", "flat", "not an envelope"}; !slices.Equal(got, want) {
		t.Errorf("back %v, want %v", got, want)
	}
}
