package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// TestHijackerClaimsRefused: a member that tries to take its neighbours'
// zones gets nothing. It heartbeats them with a certificate of the
// victim's zone signed with its own key, the victim's own certificate with
// the holder changed to itself, and its own certificate of a zone it held
// before a newcomer split it (genuine, unexpired, superseded); and it
// balances a task it was sent as the owner of that old zone. Every claim is
// refused by signature or epoch, the victim keeps its zone, a third peer
// routes the victim's tasks to the victim, and the replayed path is
// refused as misaimed.
func TestHijackerClaimsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond})
	attacker := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	victim := c.addAt(ctx, can.Point{0.75, 0.25, 0.5})
	third := c.addAt(ctx, can.Point{0.75, 0.75, 0.5})
	c.waitStable(30 * time.Second)

	own := func(m *member) []zonecert.Cert {
		m.n.mu.Lock()
		defer m.n.mu.Unlock()
		return append([]zonecert.Cert(nil), m.n.own...)
	}
	before := own(attacker)[0] // the half [0,½) before the newcomer splits it
	c.addAt(ctx, can.Point{0.25, 0.25, 0.25})
	c.waitStable(30 * time.Second)

	vCert := own(victim)[0]
	mKey := attacker.h.Peerstore().PrivKey(attacker.h.ID())
	forged := zonecert.Cert{Path: vCert.Path, Holder: attacker.h.ID(), Epoch: vCert.Epoch + 1000, Expiry: time.Now().Add(time.Hour)}
	if err := forged.Sign(mKey); err != nil {
		t.Fatal(err)
	}
	tampered := vCert
	tampered.Holder = attacker.h.ID()
	var claims [][]byte
	for _, cert := range []zonecert.Cert{forged, tampered, before} {
		raw, err := cert.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, raw)
	}
	refusedBefore := victim.n.Stats().CertsRefused + third.n.Stats().CertsRefused
	for range 5 {
		for _, to := range []*member{victim, third} {
			attacker.n.mu.Lock()
			hb := attacker.n.heartbeatLocked()
			attacker.n.mu.Unlock()
			hb.Certs = append(hb.Certs, claims...)
			if err := attacker.n.exchange(ctx, to.h.ID(), hb, false); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(c.cfg.Heartbeat)
	}
	if got := victim.n.Stats().CertsRefused + third.n.Stats().CertsRefused - refusedBefore; got < 10 {
		t.Errorf("%d claims refused by the victim and the third peer, want at least 10 (2 forged, 2 tampered a round)", got)
	}
	target := vCert.Path.Zone(3).Centre()
	if o := c.owner(target); o != victim {
		t.Fatalf("the victim's zone is held by %v after the claims, want the victim:\n%s", o, c.zoneMap())
	}
	for _, m := range []*member{victim, third} {
		for _, nb := range m.n.View().Neighbours {
			if nb.ID == attacker.h.ID() && can.Holds(nb.Zones, target) {
				t.Errorf("%s believes the attacker holds %v", m.h.ID().ShortString(), target)
			}
		}
	}
	owner, _, err := third.n.Insert(ctx, c.envelope("to-victim", target), target)
	if err != nil || owner != victim.h.ID() {
		t.Fatalf("a task for the victim's zone went to %s (%v), want the victim", owner.ShortString(), err)
	}

	// The old certificate as the path of a balanced insert to the victim:
	// it once held the point, but a newer certificate of that zone exists.
	old := before.Path.Zone(3)
	p := can.Point{old.Lo[0] + 0.01, old.Lo[1] + 0.01, old.Lo[2] + 0.01} // the newcomer's now
	if c.owner(p) == attacker {
		t.Fatalf("point %v is still the attacker's", p)
	}
	raw, _ := before.MarshalBinary()
	resp, err := send(ctx, attacker.h, victim.h.AddrInfo(), &wire.Insert{Envelope: c.envelope("stale", p), Target: p, Lbi: true, Path: [][]byte{raw}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Accepted || !errors.Is(refusal(resp.Error), admission.ErrMisaimed) {
		t.Fatalf("a balanced insert with a superseded certificate: %+v, want refused as misaimed", resp)
	}
}
