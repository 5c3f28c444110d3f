package admission

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func key(t testing.TB) (crypto.PrivKey, peer.ID) {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, id
}

// certified is a map of six members in two dimensions with every leaf
// certified by the manager's key.
type certified struct {
	manager crypto.PrivKey
	ids     []peer.ID
	certs   map[peer.ID]zonecert.Cert // each member's first leaf
	now     time.Time
}

func newCertified(t testing.TB) *certified {
	t.Helper()
	mk, _ := key(t)
	c := &certified{manager: mk, certs: map[peer.ID]zonecert.Cert{}, now: time.Now()}
	m := can.NewMap(2, time.Minute)
	for _, p := range []can.Point{{0.1, 0.1}, {0.9, 0.1}, {0.9, 0.9}, {0.1, 0.9}, {0.5, 0.5}, {0.3, 0.7}} {
		_, id := key(t)
		if _, err := m.Join(can.PeerID(id.String()), p, c.now); err != nil {
			t.Fatal(err)
		}
		c.ids = append(c.ids, id)
	}
	for _, l := range m.Leaves() {
		cert, err := zonecert.Issue(l, mk)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.certs[cert.Holder]; !ok {
			c.certs[cert.Holder] = cert
		}
	}
	return c
}

func (c *certified) zone(id peer.ID) can.Zone { return c.certs[id].Path.Zone(2) }

// roles picks an owner, a neighbour abutting it, a member not abutting
// it, and a fourth member.
func (c *certified) roles(t testing.TB) (owner, next, apart, self peer.ID) {
	t.Helper()
	for _, a := range c.ids {
		for _, b := range c.ids {
			for _, d := range c.ids {
				if a != b && a != d && b != d && can.Abuts(c.zone(a), c.zone(b)) && !can.Abuts(c.zone(a), c.zone(d)) {
					owner, next, apart = a, b, d
				}
			}
		}
	}
	for _, id := range c.ids {
		if id != owner && id != next && id != apart {
			self = id
		}
	}
	if owner == "" || self == "" {
		t.Fatal("no owner with a neighbour, a member apart and a fourth")
	}
	return owner, next, apart, self
}

func encode(t testing.TB, certs ...zonecert.Cert) [][]byte {
	t.Helper()
	var out [][]byte
	for _, c := range certs {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestCheckPath: the path a balanced insert carries is accepted only as
// a chain of the manager's live certificates from the target's owner,
// through abutting zones of distinct holders, to the peer it came from;
// every lie a member can tell about the path is refused as ErrMisaimed.
func TestCheckPath(t *testing.T) {
	c := newCertified(t)
	owner, next, apart, self := c.roles(t)
	target := c.zone(owner).Centre()
	forged := c.certs[owner]
	otherKey, _ := key(t)
	if err := forged.Sign(otherKey); err != nil {
		t.Fatal(err)
	}
	newer := c.certs[owner]
	newer.Epoch += 100
	if err := newer.Sign(c.manager); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name       string
		raw        [][]byte
		self, from peer.ID
		now        time.Time
		book       []zonecert.Cert // accepted before the path
		ok         bool
	}{
		{"owner then a neighbour", encode(t, c.certs[owner], c.certs[next]), self, next, c.now, nil, true},
		{"the owner itself", encode(t, c.certs[owner]), self, owner, c.now, nil, true},
		{"no certificate", nil, self, owner, c.now, nil, false},
		{"not a certificate", [][]byte{[]byte("not a certificate")}, self, owner, c.now, nil, false},
		{"signed by another key", encode(t, forged), self, owner, c.now, nil, false},
		{"the first does not hold the target", encode(t, c.certs[next]), self, next, c.now, nil, false},
		{"zones that do not abut", encode(t, c.certs[owner], c.certs[apart]), self, apart, c.now, nil, false},
		{"a holder twice", encode(t, c.certs[owner], c.certs[next], c.certs[owner]), self, owner, c.now, nil, false},
		{"this peer in the path", encode(t, c.certs[owner]), owner, owner, c.now, nil, false},
		{"ends at another peer", encode(t, c.certs[owner]), self, next, c.now, nil, false},
		{"expired", encode(t, c.certs[owner]), self, owner, c.now.Add(time.Hour), nil, false},
		{"older than the book's", encode(t, c.certs[owner]), self, owner, c.now, []zonecert.Cert{newer}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			book := zonecert.NewBook(c.manager.GetPublic())
			for _, b := range tc.book {
				if err := book.Accept(b, tc.now); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckPath(book, tc.raw, target, 2, tc.self, tc.from, tc.now)
			switch {
			case tc.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !tc.ok && !errors.Is(err, ErrMisaimed):
				t.Fatalf("got %v, want %v", err, ErrMisaimed)
			}
		})
	}
}

// TestCheckHandover: a leaving peer's tasks are taken only from the peer
// whose certificate, signed by the manager, names a zone the receiver now
// holds under a newer epoch; every other handover is refused whole.
func TestCheckHandover(t *testing.T) {
	c := newCertified(t)
	owner, next, apart, _ := c.roles(t)
	resign := func(cert zonecert.Cert, holder peer.ID, epoch uint64, key crypto.PrivKey) zonecert.Cert {
		cert.Holder, cert.Epoch = holder, epoch
		if err := cert.Sign(key); err != nil {
			t.Fatal(err)
		}
		return cert
	}
	left := c.certs[owner]
	heir := resign(left, next, left.Epoch+1, c.manager)
	otherKey, _ := key(t)
	for _, tc := range []struct {
		name string
		sent zonecert.Cert
		from peer.ID
		own  zonecert.Cert
		ok   bool
	}{
		{"the heir of the sender's zone", left, owner, heir, true},
		{"a certificate of another peer", left, apart, heir, false},
		{"not newer here", left, owner, resign(left, next, left.Epoch, c.manager), false},
		{"another zone here", left, owner, c.certs[apart], false},
		{"a forged certificate", resign(left, owner, left.Epoch, otherKey), owner, heir, false},
	} {
		err := CheckHandover([]zonecert.Cert{tc.sent}, tc.from, []zonecert.Cert{tc.own}, c.manager.GetPublic())
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrNotHeir) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestExtendPath: the path a peer passes a balanced insert on with is
// one the next peer's CheckPath accepts, from the owner on; a peer whose
// zones cannot extend it (not holding the target at the owner, not
// abutting the path's last zone or the next peer's) sends nothing.
func TestExtendPath(t *testing.T) {
	c := newCertified(t)
	owner, next, apart, _ := c.roles(t)
	target := c.zone(owner).Centre()
	check := func(raw [][]byte, self, from peer.ID) error {
		return CheckPath(zonecert.NewBook(c.manager.GetPublic()), raw, target, 2, self, from, c.now)
	}
	first, ok := ExtendPath(nil, []zonecert.Cert{c.certs[next], c.certs[owner]}, target, []can.Zone{c.zone(next)}, 2)
	if !ok || len(first) != 1 {
		t.Fatalf("at the owner: %d certificates, ok %v; want its own", len(first), ok)
	}
	if err := check(first, next, owner); err != nil {
		t.Fatalf("the owner's path, at the next peer: %v", err)
	}
	var third can.Zone // a zone abutting next's, not the owner's
	for _, id := range c.ids {
		if z := c.zone(id); id != owner && id != next && can.Abuts(z, c.zone(next)) {
			third = z
			if err := func() error {
				second, ok := ExtendPath(first, []zonecert.Cert{c.certs[next]}, target, []can.Zone{z}, 2)
				if !ok || len(second) != 2 {
					return fmt.Errorf("%d certificates, ok %v", len(second), ok)
				}
				return check(second, id, next)
			}(); err != nil {
				t.Fatalf("passed on again, to %s: %v", id, err)
			}
			break
		}
	}
	if third.Lo == nil {
		t.Fatal("no third zone abutting the next peer's")
	}
	for _, tc := range []struct {
		name string
		raw  [][]byte
		own  zonecert.Cert
		next can.Zone
	}{
		{"the owner's zone does not hold the target", nil, c.certs[next], c.zone(owner)},
		{"the next peer's zone does not abut", nil, c.certs[owner], c.zone(apart)},
		{"not abutting the path's last zone", first, c.certs[apart], c.zone(next)},
		{"a broken path", [][]byte{[]byte("not a certificate")}, c.certs[next], c.zone(owner)},
	} {
		if raw, ok := ExtendPath(tc.raw, []zonecert.Cert{tc.own}, target, []can.Zone{tc.next}, 2); ok {
			t.Errorf("%s: extended to %d certificates", tc.name, len(raw))
		}
	}
}

func TestCheckLeaseAndTarget(t *testing.T) {
	now := time.Now()
	live := task.Lease{Host: "a.example", Expires: now.Add(time.Minute)}
	for _, tc := range []struct {
		name string
		t    task.Task
		want error
	}{
		{"live", task.Task{ID: "t", Lease: live, Issued: now}, nil},
		{"no lease", task.Task{ID: "t", Issued: now}, ErrNoLease},
		{"ended", task.Task{ID: "t", Lease: task.Lease{Host: "a.example", Expires: now}, Issued: now}, ErrNoLease},
		{"issued ahead", task.Task{ID: "t", Lease: live, Issued: now.Add(MaxClockSkew + time.Second)}, ErrIssuedAhead},
	} {
		if err := CheckLease(&tc.t, now); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	target := can.Point{0.25, 0.5}
	for _, tc := range []struct {
		signed can.Point
		ok     bool
	}{
		{can.Point{0.25, 0.5}, true},
		{nil, false},
		{can.Point{0.25, 0.5, 0}, false},
		{can.Point{0.25, 0.51}, false},
	} {
		tk := &task.Task{ID: "t", Target: tc.signed}
		if err := CheckTarget(tk, target, 2); (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrTargetMismatch) {
			t.Errorf("signed %v, sent to %v: %v, want accepted %v", tc.signed, target, err, tc.ok)
		}
	}
}

// TestCheckNear: a taker refuses a shared task only when it measured the
// host more than Reach times as far as the sharer says it did; a sharer
// that says nothing, or a host not measured here, is taken as before.
func TestCheckNear(t *testing.T) {
	const here = 30 * time.Millisecond
	for _, tc := range []struct {
		measured bool
		sharer   time.Duration
		far      bool
	}{
		{true, 15 * time.Millisecond, false},
		{true, 14 * time.Millisecond, true},
		{true, time.Microsecond, true}, // understated: the sharer keeps its task
		{true, 0, false},               // not a share, or not measured by the sharer
		{false, time.Millisecond, false},
	} {
		tk := &task.Task{ID: "t"}
		if err := CheckNear(tk, here, tc.measured, tc.sharer); errors.Is(err, ErrTooFar) != tc.far {
			t.Errorf("measured %v, shared from %v: %v, want too far %v", tc.measured, tc.sharer, err, tc.far)
		}
	}
}

// TestRefusal: each reason survives the trip through a refusal's text,
// and a reason the caller adds is matched too.
func TestRefusal(t *testing.T) {
	mine := errors.New("node is leaving the overlay")
	for _, r := range []error{ErrNoLease, ErrIssuedAhead, ErrTargetMismatch, ErrMisaimed, ErrSeen, ErrTooFar, mine} {
		msg := fmt.Errorf("task t: %w: more", r).Error()
		if err := Refusal(msg, mine); !errors.Is(err, r) {
			t.Errorf("refusal %q does not match %v", msg, r)
		}
	}
	if err := Refusal("queue is on fire"); errors.Unwrap(err) != nil {
		t.Errorf("a refusal naming no reason wraps %v", errors.Unwrap(err))
	}
}

// TestMemory: the set in memory refuses a delivery seen before, under the
// same lease epoch only, and forgets a record once it may.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	s := NewMemory()
	tk := &task.Task{ID: "t", Lease: task.Lease{Host: "a.example", Epoch: 1, Expires: time.Now().Add(time.Minute)}}
	if err := Record(ctx, s, tk); err != nil {
		t.Fatal(err)
	}
	if err := Record(ctx, s, tk); !errors.Is(err, ErrSeen) {
		t.Fatalf("a replay: %v, want %v", err, ErrSeen)
	}
	next := *tk
	next.Lease.Epoch = 2
	if err := Record(ctx, s, &next); err != nil {
		t.Fatalf("the host's next lease: %v", err)
	}
	m := s.(*memory)
	m.ids["old"] = time.Now().Add(-time.Second)
	m.pruned = time.Now().Add(-2 * time.Minute)
	if _, err := s.Seen(ctx, "other", time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.ids["old"]; ok {
		t.Error("an expired record was kept past a prune")
	}
}

// FuzzCheckPath: a path of any bytes is refused with ErrMisaimed or
// accepted, never a panic; accepted, it starts at the target's owner.
func FuzzCheckPath(f *testing.F) {
	c := newCertified(f)
	owner, next, _, self := c.roles(f)
	raw := encode(f, c.certs[owner], c.certs[next])
	f.Add(raw[0], raw[1])
	f.Add(raw[0], []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		book := zonecert.NewBook(c.manager.GetPublic())
		target := c.zone(owner).Centre()
		err := CheckPath(book, [][]byte{a, b}, target, 2, self, next, c.now)
		if err != nil && !errors.Is(err, ErrMisaimed) {
			t.Fatalf("refused without ErrMisaimed: %v", err)
		}
		if err == nil {
			if first, _ := zonecert.Decode(a); !first.Path.Zone(2).Contains(target) {
				t.Fatal("accepted a path whose first zone does not hold the target")
			}
		}
	})
}
