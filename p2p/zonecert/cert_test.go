package zonecert

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// key makes a deterministic Ed25519 key, the type the manager signs with.
func key(t testing.TB, seed uint64) (crypto.PrivKey, peer.ID) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	k, _, err := crypto.GenerateEd25519Key(readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		return len(p), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, id
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// issue signs the certificate of a leaf of a real map: holders a and b
// joined at t0, so b holds path "1" at epoch 2.
func issue(t testing.TB, mgr crypto.PrivKey) (Cert, peer.ID, peer.ID) {
	t.Helper()
	_, a := key(t, 2)
	_, b := key(t, 3)
	m := can.NewMap(3, time.Minute)
	if _, err := m.Join(can.PeerID(a.String()), can.Point{0.1, 0.1, 0.1}, t0); err != nil {
		t.Fatal(err)
	}
	changed, err := m.Join(can.PeerID(b.String()), can.Point{0.9, 0.1, 0.1}, t0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Issue(changed[1], mgr)
	if err != nil {
		t.Fatal(err)
	}
	return c, a, b
}

func TestCertRoundTrip(t *testing.T) {
	mgr, _ := key(t, 1)
	c, _, b := issue(t, mgr)
	if c.Path != "1" || c.Holder != b || c.Epoch != 2 || !c.Expiry.Equal(t0.Add(time.Minute)) {
		t.Fatalf("certificate %+v", c)
	}
	raw, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != c.Path || got.Holder != c.Holder || got.Epoch != c.Epoch || !got.Expiry.Equal(c.Expiry) || !bytes.Equal(got.Sig, c.Sig) {
		t.Fatalf("decoded %+v, want %+v", got, c)
	}
	if err := got.Verify(mgr.GetPublic()); err != nil {
		t.Fatal(err)
	}
	t.Logf("certificate of a depth-1 zone: %d bytes", len(raw))
}

// TestBookRefuses checks each certificate a hijacker could offer: forged,
// signed by another key, expired, and replayed after a newer one.
func TestBookRefuses(t *testing.T) {
	mgr, _ := key(t, 1)
	other, _ := key(t, 9)
	good, a, b := issue(t, mgr)
	now := t0.Add(10 * time.Second)

	sign := func(c Cert, k crypto.PrivKey) Cert {
		t.Helper()
		c.Sig = nil
		if err := c.Sign(k); err != nil {
			t.Fatal(err)
		}
		return c
	}
	forged := good
	forged.Holder = a // claims b's zone for a under b's signature
	flipped := good
	flipped.Sig = bytes.Clone(good.Sig)
	flipped.Sig[3] ^= 1
	wrongKey := sign(Cert{Path: "1", Holder: a, Epoch: 9, Expiry: t0.Add(time.Hour)}, other)
	expired := sign(Cert{Path: "1", Holder: b, Epoch: 3, Expiry: now}, mgr)
	// The newest seen is epoch 5 for "10", under "1": an older
	// certificate of the parent, of the zone itself, or of a child is a
	// replay.
	newest := sign(Cert{Path: "10", Holder: b, Epoch: 5, Expiry: t0.Add(time.Minute)}, mgr)
	replayParent := sign(Cert{Path: "1", Holder: a, Epoch: 4, Expiry: t0.Add(time.Hour)}, mgr)
	replaySame := sign(Cert{Path: "10", Holder: a, Epoch: 3, Expiry: t0.Add(time.Hour)}, mgr)
	replayChild := sign(Cert{Path: "101", Holder: a, Epoch: 4, Expiry: t0.Add(time.Hour)}, mgr)
	sameEpochOther := sign(Cert{Path: "10", Holder: a, Epoch: 5, Expiry: t0.Add(time.Hour)}, mgr)
	// The certificate held, its signature altered: only a byte-equal copy
	// skips the signature check.
	heldForged := newest
	heldForged.Sig = bytes.Clone(newest.Sig)
	heldForged.Sig[5] ^= 1

	tests := []struct {
		name string
		c    Cert
		want error
	}{
		{"forged holder", forged, ErrForged},
		{"flipped signature bit", flipped, ErrForged},
		{"wrong key", wrongKey, ErrForged},
		{"expired", expired, ErrExpired},
		{"replayed parent", replayParent, ErrStale},
		{"replayed same zone", replaySame, ErrStale},
		{"replayed child", replayChild, ErrStale},
		{"same epoch, other holder", sameEpochOther, ErrStale},
		{"the certificate held, forged signature", heldForged, ErrForged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			book := NewBook(mgr.GetPublic())
			if err := book.Accept(newest, now); err != nil {
				t.Fatal(err)
			}
			if err := book.Accept(tc.c, now); !errors.Is(err, tc.want) {
				t.Fatalf("Accept: %v, want %v", err, tc.want)
			}
			if c, ok := book.Holder("10", now); !ok || c.Holder != b || c.Epoch != 5 {
				t.Errorf("after a refused certificate the book says %+v, %v", c, ok)
			}
			// The same certificate, honestly signed and newer, passes.
			fresh := sign(Cert{Path: tc.c.Path, Holder: tc.c.Holder, Epoch: 6, Expiry: now.Add(time.Minute)}, mgr)
			if err := book.Accept(fresh, now); err != nil {
				t.Fatalf("a newer certificate: %v", err)
			}
		})
	}
}

// newBook returns an empty book of a manager's, a function that signs
// certificates with the manager's key, and two peers.
func newBook(t *testing.T) (book *Book, sign func(Cert) Cert, a, b peer.ID) {
	mgr, _ := key(t, 1)
	_, a = key(t, 2)
	_, b = key(t, 3)
	sign = func(c Cert) Cert {
		t.Helper()
		if err := c.Sign(mgr); err != nil {
			t.Fatal(err)
		}
		return c
	}
	return NewBook(mgr.GetPublic()), sign, a, b
}

func TestBookNewestWins(t *testing.T) {
	book, sign, a, b := newBook(t)
	steps := []struct {
		name string
		c    Cert
	}{
		{"a holds the box", sign(Cert{Path: "", Holder: a, Epoch: 1, Expiry: t0.Add(time.Minute)})},
		{"b joins: a keeps the low half", sign(Cert{Path: "0", Holder: a, Epoch: 2, Expiry: t0.Add(time.Minute)})},
		{"b takes the high half", sign(Cert{Path: "1", Holder: b, Epoch: 2, Expiry: t0.Add(2 * time.Minute)})},
		{"a renews", sign(Cert{Path: "0", Holder: a, Epoch: 2, Expiry: t0.Add(3 * time.Minute)})},
	}
	for _, s := range steps {
		if err := book.Accept(s.c, t0); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	if book.Len() != 2 {
		t.Errorf("book holds %d certificates, want the two halves", book.Len())
	}
	if c, ok := book.Holder("0", t0); !ok || c.Holder != a || !c.Expiry.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("low half: %+v, %v", c, ok)
	}
	// An older copy of a's renewal changes nothing.
	if err := book.Accept(steps[1].c, t0); err != nil {
		t.Fatal(err)
	}
	if c, _ := book.Holder("0", t0); !c.Expiry.Equal(t0.Add(3 * time.Minute)) {
		t.Errorf("an older copy moved the expiry to %v", c.Expiry)
	}
	// The whole box's first certificate is a replay now.
	if err := book.Accept(steps[0].c, t0); !errors.Is(err, ErrStale) {
		t.Errorf("replayed box certificate: %v", err)
	}
	// Pruning with a cutoff one TTL back keeps what refuses replays.
	if n := book.Prune(t0.Add(2*time.Minute - time.Second)); n != 0 {
		t.Errorf("pruned %d certificates still within a TTL", n)
	}
	if n := book.Prune(t0.Add(4 * time.Minute)); n != 2 || book.Len() != 0 {
		t.Errorf("pruned %d, %d left", n, book.Len())
	}
	if _, ok := book.Holder("1", t0.Add(2*time.Minute)); ok {
		t.Error("an expired certificate still names a holder")
	}
}

// TestBookForgets checks that Forget drops what expired more than the
// longest lifetime seen ago, and not sooner: until then an expired
// certificate still refuses a replay of the one it superseded.
func TestBookForgets(t *testing.T) {
	book, sign, a, b := newBook(t)
	const ttl = 2 * time.Minute
	// a held the box; renewed at t0 + 1 min, just before b's join.
	box := sign(Cert{Path: "", Holder: a, Epoch: 1, Expiry: t0.Add(time.Minute + ttl)})
	if err := book.Accept(box, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	half := sign(Cert{Path: "1", Holder: b, Epoch: 2, Expiry: t0.Add(time.Minute + time.Second + ttl/4)})
	if err := book.Accept(half, t0.Add(time.Minute+time.Second)); err != nil {
		t.Fatal(err)
	}
	// b's certificate expired, a's superseded box has not: the book must
	// still refuse the box.
	at := half.Expiry.Add(ttl / 4)
	if n := book.Forget(at); n != 0 {
		t.Fatalf("forgot %d certificates while a superseded one is alive", n)
	}
	if err := book.Accept(box, at); !errors.Is(err, ErrStale) {
		t.Errorf("replayed box after its successor expired: %v, want ErrStale", err)
	}
	if n := book.Forget(half.Expiry.Add(ttl + time.Second)); n != 1 || book.Len() != 0 {
		t.Errorf("a TTL past expiry: forgot %d, %d left; want 1, 0", n, book.Len())
	}
}

func TestDecodeRefusesCorrupt(t *testing.T) {
	mgr, _ := key(t, 1)
	c, _, _ := issue(t, mgr)
	raw, _ := c.MarshalBinary()
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"bad version", append([]byte{2}, raw[1:]...)},
		{"truncated", raw[:len(raw)-1]},
		{"trailing byte", append(bytes.Clone(raw), 0)},
		{"unused path bits", func() []byte { b := bytes.Clone(raw); b[2] |= 0x01; return b }()},
		{"holder not a peer ID", func() []byte { b := bytes.Clone(raw); b[5] = 0x10; return b }()}, // multihash length
		{"too long", make([]byte, MaxSize+1)},
		{"overlong epoch varint", func() []byte {
			// The epoch (2) follows the 38-byte holder; 0x82 0x00 is 2
			// written long.
			b := append(bytes.Clone(raw[:42]), 0x82, 0x00)
			return append(b, raw[43:]...)
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.b)
			t.Log(err)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v, want ErrCorrupt", err)
			}
		})
	}
}

// FuzzDecode checks that Decode refuses what it cannot use and that what
// it accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	mgr, _ := key(f, 1)
	c, _, _ := issue(f, mgr)
	raw, _ := c.MarshalBinary()
	f.Add(raw)
	c.Path = "0110100111"
	if err := c.Sign(mgr); err != nil {
		f.Fatal(err)
	}
	raw, _ = c.MarshalBinary()
	f.Add(raw)
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := c.MarshalBinary()
		if err != nil {
			t.Fatalf("accepted certificate does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x, read %x", again, b)
		}
		_ = c.Verify(mgr.GetPublic()) // must not panic
	})
}

// TestBookAround: a peer's zones and neighbours are what the book's
// unexpired certificates say, and after it left, who holds what was its.
// In a 2-d space a holds "00", b "01" (abutting a), c "1" (abutting both);
// d's "11" is what c held first.
func TestBookAround(t *testing.T) {
	book, sign, a, b := newBook(t)
	_, c := key(t, 4)
	const dim = 2
	for _, x := range []Cert{
		{Path: "00", Holder: a, Epoch: 3, Expiry: t0.Add(time.Minute)},
		{Path: "01", Holder: b, Epoch: 3, Expiry: t0.Add(time.Minute)},
		{Path: "1", Holder: c, Epoch: 2, Expiry: t0.Add(2 * time.Minute)},
	} {
		if err := book.Accept(sign(x), t0); err != nil {
			t.Fatal(err)
		}
	}
	own, nbrs := book.Around(a, dim, t0)
	if len(own) != 1 || own[0].Path != "00" || len(nbrs) != 2 || len(nbrs[b]) != 1 || len(nbrs[c]) != 1 {
		t.Fatalf("a holds %v with neighbours %v, want 00 beside b and c", own, nbrs)
	}
	if got := book.HeldBy(c, t0); len(got) != 1 || got[0].Path != "1" {
		t.Errorf("c holds %v, want 1", got)
	}
	// After a minute a's and b's certificates expired: c holds no
	// neighbour, and a nothing.
	later := t0.Add(90 * time.Second)
	if own, nbrs := book.Around(c, dim, later); len(own) != 1 || len(nbrs) != 0 {
		t.Errorf("after a and b expired c holds %v with neighbours %v", own, nbrs)
	}
	if own, _ := book.Around(a, dim, later); len(own) != 0 {
		t.Errorf("a still holds %v after its certificate expired", own)
	}

	// a leaves: the manager gives "00" to b, which now holds "0"; c's
	// zone, untouched, is no successor of a's.
	old := own
	if err := book.Accept(sign(Cert{Path: "0", Holder: b, Epoch: 4, Expiry: t0.Add(time.Minute)}), t0); err != nil {
		t.Fatal(err)
	}
	succ := book.Successors(old, a, t0)
	if len(succ) != 1 || len(succ[b]) != 1 || succ[b][0].Path != "0" {
		t.Errorf("successors of a's %v: %v, want b holding 0", old, succ)
	}
	if got := book.Successors(old, b, t0); len(got) != 0 {
		t.Errorf("b counts itself among its own successors: %v", got)
	}
}
