package botkeys

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newKey(t testing.TB) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

func open(t *testing.T, dir string) *Registry {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// openPostgres opens the registry in the PostgreSQL database dsn, with
// dir for a file to import and the clock clk.
func openPostgres(t *testing.T, dsn, dir string, clk func() time.Time) *Registry {
	t.Helper()
	r, err := OpenWith(context.Background(), Options{Dir: dir, Postgres: dsn, Now: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// eachStore runs f on a bbolt file and on a PostgreSQL database; open
// opens a registry on the one store, again after a Close.
func eachStore(t *testing.T, f func(t *testing.T, open func() *Registry)) {
	t.Run("bbolt", func(t *testing.T) {
		dir := t.TempDir()
		f(t, func() *Registry { return open(t, dir) })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.Start(t).DSN
		f(t, func() *Registry { return openPostgres(t, dsn, "", time.Now) })
	})
}

// live returns r's directory as keyids.
func live(t *testing.T, r *Registry) map[string]bool {
	t.Helper()
	d, err := r.Directory()
	if err != nil {
		t.Fatal(err)
	}
	return keyids(d)
}

// keyids returns the directory's keys as keyids.
func keyids(d botauth.Directory) map[string]bool {
	ids := make(map[string]bool)
	for _, k := range d.Keys {
		pub, err := k.PublicKey()
		if err != nil {
			panic(err)
		}
		ids[botauth.Thumbprint(pub)] = true
	}
	return ids
}

// withdrawn is r.PeerWithdrawn(peer), failing t on an error.
func withdrawn(t *testing.T, r *Registry, peer string) bool {
	t.Helper()
	w, err := r.PeerWithdrawn(peer)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestCertify(t *testing.T) { eachStore(t, testCertify) }

func testCertify(t *testing.T, open func() *Registry) {
	r := open()
	pubA, _ := newKey(t)
	pubB, _ := newKey(t)
	pubA2, _ := newKey(t)
	idA, idB, idA2 := botauth.Thumbprint(pubA), botauth.Thumbprint(pubB), botauth.Thumbprint(pubA2)

	steps := []struct {
		name    string
		peer    string
		pub     ed25519.PublicKey
		want    error
		live    []string // the directory after the step
		retired string   // a key now withdrawn as superseded
	}{
		{name: "first key", peer: "peerA", pub: pubA, live: []string{idA}},
		{name: "same key again", peer: "peerA", pub: pubA, live: []string{idA}},
		{name: "other peer", peer: "peerB", pub: pubB, live: []string{idA, idB}},
		{name: "key of another peer", peer: "peerB", pub: pubA, want: ErrOtherPeer, live: []string{idA, idB}},
		{name: "no peer", peer: "", pub: pubA2, want: ErrBadKey, live: []string{idA, idB}},
		{name: "short key", peer: "peerA", pub: pubA2[:31], want: ErrBadKey, live: []string{idA, idB}},
		{name: "new key supersedes", peer: "peerA", pub: pubA2, live: []string{idA2, idB}, retired: idA},
		{name: "superseded key refused", peer: "peerA", pub: pubA, want: ErrWithdrawn, live: []string{idA2, idB}},
	}
	for _, s := range steps {
		id, err := r.Certify(s.peer, s.pub, t0)
		if s.want != nil {
			if !errors.Is(err, s.want) {
				t.Fatalf("%s: Certify = %v, want %v", s.name, err, s.want)
			}
		} else if err != nil {
			t.Fatalf("%s: Certify: %v", s.name, err)
		} else if id != botauth.Thumbprint(s.pub) {
			t.Fatalf("%s: keyid %s, want the thumbprint %s", s.name, id, botauth.Thumbprint(s.pub))
		}
		got := live(t, r)
		if len(got) != len(s.live) {
			t.Fatalf("%s: directory %v, want %v", s.name, got, s.live)
		}
		for _, id := range s.live {
			if !got[id] {
				t.Fatalf("%s: directory %v lacks %s", s.name, got, id)
			}
		}
		if s.retired != "" {
			st, err := r.Status(s.retired)
			if err != nil || st.Live() || st.Reason != ReasonSuperseded || !st.Withdrawn.Equal(t0) {
				t.Fatalf("%s: Status(%s) = %+v, %v; want superseded at %v", s.name, s.retired, st, err, t0)
			}
		}
	}
}

func TestWithdraw(t *testing.T) { eachStore(t, testWithdraw) }

func testWithdraw(t *testing.T, open func() *Registry) {
	r := open()
	pubA, _ := newKey(t)
	pubB, _ := newKey(t)
	idA, idB := botauth.Thumbprint(pubA), botauth.Thumbprint(pubB)
	for peer, pub := range map[string]ed25519.PublicKey{"peerA": pubA, "peerB": pubB} {
		if _, err := r.Certify(peer, pub, t0); err != nil {
			t.Fatal(err)
		}
	}
	t1, t2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	steps := []struct {
		name, which, reason string
		at                  time.Time
		want                error
		gone                string // keyid withdrawn after the step
		wantReason          string
		wantAt              time.Time
	}{
		{name: "by keyid", which: idA, reason: "left", at: t1, gone: idA, wantReason: "left", wantAt: t1},
		{name: "again keeps the first reason", which: idA, reason: "cheated", at: t2, gone: idA, wantReason: "left", wantAt: t1},
		{name: "by peer ID", which: "peerB", reason: "cheated", at: t2, gone: idB, wantReason: "cheated", wantAt: t2},
		{name: "peer with nothing live", which: "peerB", reason: "again", at: t2, gone: idB, wantReason: "cheated", wantAt: t2},
		{name: "unknown", which: "nobody", reason: "x", at: t2, want: ErrNotFound},
	}
	for _, s := range steps {
		err := r.Withdraw(s.which, s.reason, s.at)
		if !errors.Is(err, s.want) {
			t.Fatalf("%s: Withdraw = %v, want %v", s.name, err, s.want)
		}
		if s.gone == "" {
			continue
		}
		if live(t, r)[s.gone] {
			t.Fatalf("%s: withdrawn key %s still in the directory", s.name, s.gone)
		}
		st, err := r.Status(s.gone)
		if err != nil || st.Live() || st.Reason != s.wantReason || !st.Withdrawn.Equal(s.wantAt) {
			t.Fatalf("%s: Status = %+v, %v; want withdrawn at %v for %q", s.name, st, err, s.wantAt, s.wantReason)
		}
	}
	if got := live(t, r); len(got) != 0 {
		t.Errorf("directory %v, want empty", got)
	}
	if _, err := r.Status("no-such-key"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Status of an unknown key = %v, want ErrNotFound", err)
	}
}

func TestReopen(t *testing.T) { eachStore(t, testReopen) }

func testReopen(t *testing.T, open func() *Registry) {
	r := open()
	pubA, _ := newKey(t)
	pubB, _ := newKey(t)
	idA, _ := r.Certify("peerA", pubA, t0)
	idB, _ := r.Certify("peerB", pubB, t0)
	if err := r.Withdraw(idB, "cheated", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	r = open()
	got := live(t, r)
	if len(got) != 1 || !got[idA] {
		t.Fatalf("reopened directory %v, want only %s", got, idA)
	}
	st, err := r.Status(idB)
	if err != nil || st.Live() || st.Reason != "cheated" || st.PeerID != "peerB" || !st.PublicKey.Equal(pubB) || !st.Certified.Equal(t0) {
		t.Fatalf("reopened Status(%s) = %+v, %v", idB, st, err)
	}
	if _, err := r.Certify("peerB", pubB, t0); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("reopened registry re-certified a withdrawn key: %v", err)
	}
	// The peer index survived too: peer A's next key supersedes its first.
	pubA2, _ := newKey(t)
	if _, err := r.Certify("peerA", pubA2, t0); err != nil {
		t.Fatal(err)
	}
	if got := live(t, r); len(got) != 1 || got[idA] {
		t.Errorf("directory %v after peer A's new key, want only the new key", got)
	}
}

func TestWithdrawnKeyFailsVerification(t *testing.T) {
	eachStore(t, testWithdrawnKeyFailsVerification)
}

func testWithdrawnKeyFailsVerification(t *testing.T, open func() *Registry) {
	r := open()
	pub, priv := newKey(t)
	keyid, err := r.Certify("peerA", pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := botauth.NewSigner(priv, "https://manager.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "https://site.example/", nil)
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	d, err := r.Directory()
	if err != nil {
		t.Fatal(err)
	}
	if err := botauth.Verify(req, d, now); err != nil {
		t.Fatalf("certified key: %v", err)
	}
	if err := r.Withdraw(keyid, "cheated", t0); err != nil {
		t.Fatal(err)
	}
	if d, err = r.Directory(); err != nil {
		t.Fatal(err)
	}
	if err := botauth.Verify(req, d, now); !errors.Is(err, botauth.ErrUnknownKey) {
		t.Fatalf("withdrawn key: Verify = %v, want ErrUnknownKey", err)
	}
}

// TestWithdrawnPeerStaysOut: a peer whose key was withdrawn for cause gets
// no new key certified; one that only replaced its own key does.
func TestWithdrawnPeerStaysOut(t *testing.T) { eachStore(t, testWithdrawnPeerStaysOut) }

func testWithdrawnPeerStaysOut(t *testing.T, open func() *Registry) {
	r := open()
	now := time.Now()
	first, _ := newKey(t)
	second, _ := newKey(t)
	if _, err := r.Certify("p1", first, now); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Certify("p1", second, now); err != nil {
		t.Fatalf("a new key superseding the peer's own: %v", err)
	}
	if withdrawn(t, r, "p1") {
		t.Fatal("a peer that replaced its key counts as withdrawn")
	}
	if err := r.Withdraw("p1", "cheated", now); err != nil {
		t.Fatal(err)
	}
	if !withdrawn(t, r, "p1") {
		t.Fatal("a peer withdrawn for cause does not count as withdrawn")
	}
	third, _ := newKey(t)
	if _, err := r.Certify("p1", third, now); !errors.Is(err, ErrWithdrawn) {
		t.Fatalf("certify a new key of a withdrawn peer = %v, want ErrWithdrawn", err)
	}
	if got := live(t, r); len(got) != 0 {
		t.Fatalf("directory %v, want empty", got)
	}
}
