package manager

import (
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/manager/botkeys"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
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
	if a := m.desk.Decide(context.Background(), p, renew); a.Withdrawn != "" {
		t.Fatalf("before the withdrawal the answer says %q", a.Withdrawn)
	}
	if err := m.WithdrawKey(p.String(), "2 results failed validation"); err != nil {
		t.Fatal(err)
	}
	a := m.desk.Decide(context.Background(), p, renew)
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
	a := m.desk.Decide(context.Background(), p, renew)
	if a.Granted || a.Withdrawn != "" || !strings.Contains(a.Error, "cannot check this volunteer's request-signing key") {
		t.Fatalf("renewal with the registry closed answered %+v, want a refusal to retry", a)
	}
}

// TestSharedKeyWithdrawal: two managers on one PostgreSQL database. A
// volunteer's key certified through a is in b's directory too; withdrawn
// at b, a refuses the peer's lease requests at once and drops the key
// from the directory it serves within botkeys.DirectoryRefresh.
func TestSharedKeyWithdrawal(t *testing.T) {
	dsn := pgtest.Start(t).DSN
	clk := &clock{t: time.Now().UTC()}
	directory := func(o *Options) { o.Site.Directory = "127.0.0.1:0" }
	a := newSharedManager(t, t.TempDir(), dsn, "", clk, directory)
	mb := newSharedManager(t, t.TempDir(), dsn, filepath.Join(a.Dir(), KeyFile), clk, directory)

	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := peer.IDFromPrivateKey(k)
	bot, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyid := botauth.Thumbprint(bot)
	// As a claim at a does.
	if err := a.certify(p, bot); err != nil {
		t.Fatal(err)
	}
	lists := func(m *Manager) bool {
		t.Helper()
		srv := httptest.NewServer(m.dir.Handler())
		defer srv.Close()
		resp, err := http.Get(srv.URL + botauth.DirectoryPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		d, err := botauth.ParseDirectory(body)
		if err != nil {
			t.Fatalf("directory: %s %s: %v", resp.Status, body, err)
		}
		_, ok := d.Lookup(keyid)
		return ok
	}
	if !lists(a) || !lists(mb) {
		t.Fatalf("key certified through a: in a's directory %v, in b's %v; want both", lists(a), lists(mb))
	}
	renew := lease.Request{Op: lease.Renew, TaskID: "t/1/0", Epoch: 1, Pages: 3}
	if ans := a.desk.Decide(context.Background(), p, renew); ans.Withdrawn != "" {
		t.Fatalf("before the withdrawal a answers %q", ans.Withdrawn)
	}

	if err := mb.WithdrawKey(p.String(), "2 results failed validation"); err != nil {
		t.Fatal(err)
	}
	if ans := a.desk.Decide(context.Background(), p, renew); ans.Granted || ans.Withdrawn == "" {
		t.Errorf("a's answer after b withdrew the key: %+v, want the refusal of a withdrawn peer", ans)
	}
	clk.add(botkeys.DirectoryRefresh)
	if lists(a) {
		t.Errorf("a's directory lists the key b withdrew, %v later", botkeys.DirectoryRefresh)
	}
	if lists(mb) {
		t.Error("b's directory lists the key it withdrew")
	}
}
