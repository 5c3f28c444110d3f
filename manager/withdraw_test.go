package manager

import (
	"context"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/lease"
)

// TestWithdrawnPeerIsToldAtRenewal: once its key is withdrawn, a peer's
// renewal and claim are refused with the word that every lease it holds
// is over (the fallback should the revocation not reach it).
func TestWithdrawnPeerIsToldAtRenewal(t *testing.T) {
	m := newManager(t, t.TempDir(), &clock{t: time.Now().UTC()})
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := peer.IDFromPrivateKey(k)
	bot, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.keys.Certify(p.String(), bot, time.Now()); err != nil {
		t.Fatal(err)
	}
	renew := lease.Request{Op: lease.Renew, TaskID: "t/1/0", Epoch: 1, Pages: 3}
	if a := m.decideLease(context.Background(), p, renew); a.Withdrawn != "" {
		t.Fatalf("before the withdrawal the answer says %q", a.Withdrawn)
	}
	if err := m.WithdrawKey(p.String(), "2 results failed validation"); err != nil {
		t.Fatal(err)
	}
	a := m.decideLease(context.Background(), p, renew)
	if a.Granted || !strings.Contains(a.Withdrawn, "withdrew this volunteer's request-signing key") {
		t.Fatalf("renewal after the withdrawal answered %+v, want a refusal saying every lease is over", a)
	}
}

// TestUnreadableRegistryRefusesLease: when the key registry cannot be
// read, a lease request is refused as one to try again, not granted (the
// peer might be withdrawn) and not told its leases are over (it might
// not be).
func TestUnreadableRegistryRefusesLease(t *testing.T) {
	m := newManager(t, t.TempDir(), &clock{t: time.Now().UTC()})
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := peer.IDFromPrivateKey(k)
	m.keys.Close()
	renew := lease.Request{Op: lease.Renew, TaskID: "t/1/0", Epoch: 1, Pages: 3}
	a := m.decideLease(context.Background(), p, renew)
	if a.Granted || a.Withdrawn != "" || !strings.Contains(a.Error, "cannot check this volunteer's request-signing key") {
		t.Fatalf("renewal with the registry closed answered %+v, want a refusal to retry", a)
	}
}
