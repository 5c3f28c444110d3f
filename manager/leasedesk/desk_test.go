package leasedesk

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/channels/channelstest"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/task"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newKey(t *testing.T) crypto.PrivKey {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestDeskRefusesWhatItCannotCheck: a claim is refused before the
// channel database is asked when its task is not signed by the manager,
// when the request names another task or epoch than the signed one, and
// when the claimer shows no proof that it may hold the task; a peer the
// manager refuses gets that refusal for claims and renewals alike.
func TestDeskRefusesWhatItCannotCheck(t *testing.T) {
	d := channelstest.Open(t)
	mgr, other := newKey(t), newKey(t)
	claimer, err := peer.IDFromPrivateKey(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	banned := map[peer.ID]bool{}
	desk := New(Config{
		DB: d, Key: mgr.GetPublic(), Dim: can.DefaultDim, Times: channels.LeaseTimes{Hold: time.Minute},
		Now:    func() time.Time { return t0 },
		Owner:  func(can.Point) (peer.ID, bool) { return "", false },
		Linked: func(string, []string) (string, bool) { return "", false },
		Refusal: func(p peer.ID) (lease.Answer, bool) {
			return lease.Answer{Error: "refused: withdrawn"}, banned[p]
		},
		Outdated: func(string) string { return "" },
		Certify:  func(peer.ID, []byte) error { return nil },
	})
	tk := &task.Task{ID: "t1", Channel: "a.example", Seeds: []string{"http://a.example/"}, MaxDepth: 1, Delay: task.Duration(time.Second),
		Interval: task.Duration(time.Hour), Issued: t0, Target: make(can.Point, can.DefaultDim), Lease: task.Lease{Host: "a.example", Epoch: 1}}
	seal := func(k crypto.PrivKey) []byte {
		b, err := envelope.Seal(tk, k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		r    lease.Request
		want string
	}{
		{"forged", lease.Request{Op: lease.Claim, TaskID: "t1", Epoch: 1, Task: seal(other)}, "refused: "},
		{"another epoch", lease.Request{Op: lease.Claim, TaskID: "t1", Epoch: 2, Task: seal(mgr)}, "does not match its signed task"},
		{"another task", lease.Request{Op: lease.Claim, TaskID: "t2", Epoch: 1, Task: seal(mgr)}, "does not match its signed task"},
		{"no proof", lease.Request{Op: lease.Claim, TaskID: "t1", Epoch: 1, Task: seal(mgr)}, "shows no proof"},
		{"garbage proof", lease.Request{Op: lease.Claim, TaskID: "t1", Epoch: 1, Task: seal(mgr), Proof: []byte("x")}, "refused: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := desk.Decide(context.Background(), claimer, tc.r)
			if a.Granted || !strings.Contains(a.Error, tc.want) {
				t.Fatalf("answer %+v, want a refusal containing %q", a, tc.want)
			}
		})
	}
	banned[claimer] = true
	for _, op := range []string{lease.Claim, lease.Renew} {
		a := desk.Decide(context.Background(), claimer, lease.Request{Op: op, TaskID: "t1", Epoch: 1, Task: seal(mgr)})
		if a.Error != "refused: withdrawn" {
			t.Fatalf("%v by a refused peer answered %+v, want the manager's refusal", op, a)
		}
	}
}

// TestDeskPinnedTaskByItsHolderAlone: a task passed on by its target's
// holder, with that holder's signed hand-off, is claimed by the peer it
// was passed to, unless the manager pinned it to the holder (a
// spot-check at the checker it chose): then only the holder's own claim
// shows a proof.
func TestDeskPinnedTaskByItsHolderAlone(t *testing.T) {
	d := channelstest.Open(t)
	mgr, ownerKey := newKey(t), newKey(t)
	owner, _ := peer.IDFromPrivateKey(ownerKey)
	taker, _ := peer.IDFromPrivateKey(newKey(t))
	desk := New(Config{
		DB: d, Key: mgr.GetPublic(), Dim: can.DefaultDim, Times: channels.LeaseTimes{Hold: time.Minute},
		Now:      func() time.Time { return t0 },
		Owner:    func(can.Point) (peer.ID, bool) { return owner, true },
		Linked:   func(string, []string) (string, bool) { return "", false },
		Refusal:  func(peer.ID) (lease.Answer, bool) { return lease.Answer{}, false },
		Outdated: func(string) string { return "" },
		Certify:  func(peer.ID, []byte) error { return nil },
	})
	cert, err := zonecert.Issue(can.Leaf{Path: "", Holder: can.PeerID(owner.String()), Epoch: 1, Expiry: t0.Add(time.Hour)}, mgr)
	if err != nil {
		t.Fatal(err)
	}
	for _, pinned := range []bool{false, true} {
		tk := &task.Task{ID: "t1", Channel: "a.example", Seeds: []string{"http://a.example/"}, MaxDepth: 1, Delay: task.Duration(time.Second),
			Interval: task.Duration(time.Hour), Issued: t0, Target: make(can.Point, can.DefaultDim), Lease: task.Lease{Host: "a.example", Epoch: 1},
			Pinned: pinned}
		env, err := envelope.Seal(tk, mgr)
		if err != nil {
			t.Fatal(err)
		}
		own := zonecert.OwnerProof(cert)
		passed, err := own.Pass(tk.ID, 1, taker, ownerKey)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			by    peer.ID
			proof zonecert.Proof
			ok    bool
		}{{owner, own, true}, {taker, passed, !pinned}} {
			raw, _ := c.proof.MarshalBinary()
			a := desk.Decide(context.Background(), c.by, lease.Request{Op: lease.Claim, TaskID: "t1", Epoch: 1, Task: env, Proof: raw})
			// The task is in no channel database here: a claim that shows
			// its proof is refused further on, for that.
			if refused := strings.Contains(a.Error, "no proof that this peer may hold the task"); refused == c.ok {
				t.Errorf("pinned %v, claim by the %s: %+v", pinned, map[bool]string{true: "holder", false: "peer it was passed to"}[c.by == owner], a)
			}
		}
	}
}
