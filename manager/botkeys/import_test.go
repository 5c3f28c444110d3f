package botkeys

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

func TestMergePeer(t *testing.T) {
	t1, t2, now := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(24*time.Hour)
	rec := func(keyid, peer string, certified time.Time) Status {
		return Status{KeyID: keyid, PeerID: peer, Certified: certified}
	}
	gone := func(s Status, at time.Time, reason string) Status {
		s.Withdrawn, s.Reason = at, reason
		return s
	}
	tests := []struct {
		name       string
		stored     []Status
		latest     string
		file       []Status
		want       []Status
		wantLatest string
		wantOut    bool // the peer counts as withdrawn
	}{
		{name: "new peer",
			file:       []Status{gone(rec("k1", "p", t0), t1, ReasonSuperseded), rec("k2", "p", t1)},
			want:       []Status{gone(rec("k1", "p", t0), t1, ReasonSuperseded), rec("k2", "p", t1)},
			wantLatest: "k2"},
		{name: "same key: earliest certification",
			stored: []Status{rec("k1", "p", t1)}, latest: "k1",
			file:       []Status{rec("k1", "p", t0)},
			want:       []Status{rec("k1", "p", t0)},
			wantLatest: "k1"},
		{name: "same key: the file's withdrawal wins over live",
			stored: []Status{rec("k1", "p", t0)}, latest: "k1",
			file:       []Status{gone(rec("k1", "p", t0), t1, "cheated")},
			want:       []Status{gone(rec("k1", "p", t0), t1, "cheated")},
			wantLatest: "k1", wantOut: true},
		{name: "same key: for cause wins over an earlier supersession",
			stored: []Status{gone(rec("k1", "p", t0), t2, "cheated")}, latest: "k1",
			file:       []Status{gone(rec("k1", "p", t0), t1, ReasonSuperseded)},
			want:       []Status{gone(rec("k1", "p", t0), t2, "cheated")},
			wantLatest: "k1", wantOut: true},
		{name: "withdrawn for cause in the file: the store's newer key goes",
			stored: []Status{rec("k2", "p", t2)}, latest: "k2",
			file:       []Status{gone(rec("k1", "p", t0), t1, "cheated")},
			want:       []Status{gone(rec("k1", "p", t0), t1, "cheated"), gone(rec("k2", "p", t2), now, "cheated")},
			wantLatest: "k1", wantOut: true},
		{name: "withdrawn for cause in the store: the file's live key goes",
			stored: []Status{gone(rec("k1", "p", t0), t1, "cheated")}, latest: "k1",
			file:       []Status{rec("k2", "p", t2)},
			want:       []Status{gone(rec("k1", "p", t0), t1, "cheated"), gone(rec("k2", "p", t2), now, "cheated")},
			wantLatest: "k1", wantOut: true},
		{name: "two live keys: the later stays",
			stored: []Status{rec("k1", "p", t0)}, latest: "k1",
			file:       []Status{rec("k2", "p", t1)},
			want:       []Status{gone(rec("k1", "p", t0), now, ReasonSuperseded), rec("k2", "p", t1)},
			wantLatest: "k2"},
		{name: "two live keys of one time: the store's stays",
			stored: []Status{rec("k2", "p", t0)}, latest: "k2",
			file:       []Status{rec("k1", "p", t0)},
			want:       []Status{gone(rec("k1", "p", t0), now, ReasonSuperseded), rec("k2", "p", t0)},
			wantLatest: "k2"},
		{name: "key of another peer in the store",
			file:       []Status{rec("k1", "p", t0)},
			stored:     []Status{rec("k1", "q", t1)},
			want:       []Status{},
			wantLatest: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, latest := mergePeer("p", tt.stored, tt.latest, tt.file, now)
			if !slices.EqualFunc(got, tt.want, equalStatus) {
				t.Errorf("records\n%+v\nwant\n%+v", got, tt.want)
			}
			if latest != tt.wantLatest {
				t.Errorf("latest %q, want %q", latest, tt.wantLatest)
			}
			i := slices.IndexFunc(got, func(s Status) bool { return s.KeyID == latest })
			if out := i >= 0 && got[i].forCause(); out != tt.wantOut {
				t.Errorf("peer withdrawn %v, want %v", out, tt.wantOut)
			}
			if n := len(slices.DeleteFunc(slices.Clone(got), func(s Status) bool { return !s.Live() })); n > 1 {
				t.Errorf("%d live keys of one peer", n)
			}
		})
	}
}

func equalStatus(a, b Status) bool {
	return a.KeyID == b.KeyID && a.PeerID == b.PeerID && a.Certified.Equal(b.Certified) &&
		a.Withdrawn.Equal(b.Withdrawn) && a.Reason == b.Reason
}

// TestImport: two managers that kept their registries in files move to
// one PostgreSQL database: both files' keys and withdrawals are in it,
// the files are renamed and kept, and opening again changes nothing.
func TestImport(t *testing.T) {
	dsn := pgtest.Start(t).DSN
	dirA, dirB := t.TempDir(), t.TempDir()
	pubP, _ := newKey(t)
	pubQ, _ := newKey(t)
	pubR, _ := newKey(t)
	// Manager A certified p and q; B certified p's key too, and q's, and
	// withdrew q's for cause; r only A knows, and A withdrew it as left.
	a := open(t, dirA)
	idP, _ := a.Certify("p", pubP, t0)
	idQ, _ := a.Certify("q", pubQ, t0)
	idR, _ := a.Certify("r", pubR, t0)
	if err := a.Withdraw(idR, "left", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	b := open(t, dirB)
	b.Certify("p", pubP, t0.Add(time.Hour))
	b.Certify("q", pubQ, t0.Add(time.Hour))
	if err := b.Withdraw("q", "cheated", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()

	check := func(r *Registry) {
		t.Helper()
		if got := live(t, r); len(got) != 1 || !got[idP] {
			t.Errorf("directory %v, want only p's key %s", got, idP)
		}
		if st, err := r.Status(idP); err != nil || !st.Certified.Equal(t0) {
			t.Errorf("p's key: %+v, %v; want certified at %v", st, err, t0)
		}
		for peer, want := range map[string]bool{"p": false, "q": true, "r": true} {
			if withdrawn(t, r, peer) != want {
				t.Errorf("peer %s withdrawn: %v, want %v", peer, !want, want)
			}
		}
		if st, err := r.Status(idQ); err != nil || st.Reason != "cheated" {
			t.Errorf("q's key: %+v, %v; want withdrawn for cheating", st, err)
		}
	}
	rA := openPostgres(t, dsn, dirA, time.Now)
	openPostgres(t, dsn, dirB, time.Now)
	check(rA)
	for _, dir := range []string{dirA, dirB} {
		if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
			t.Errorf("%s still in %s: %v", FileName, dir, err)
		}
		if _, err := os.Stat(filepath.Join(dir, FileName+ImportedSuffix)); err != nil {
			t.Errorf("imported file not kept: %v", err)
		}
	}
	// Put back (a restore from backup) and imported again: no change.
	if err := os.Rename(filepath.Join(dirB, FileName+ImportedSuffix), filepath.Join(dirB, FileName)); err != nil {
		t.Fatal(err)
	}
	check(openPostgres(t, dsn, dirB, time.Now))
	// A restart keeps the registry.
	rA.Close()
	check(openPostgres(t, dsn, dirA, time.Now))
}
