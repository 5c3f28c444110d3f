package manager

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// newSharedManager starts a manager in dir on the PostgreSQL database
// dsn, with the key in keyFile (copied in) when it is set, and its
// options changed by opts.
func newSharedManager(t testing.TB, dir, dsn, keyFile string, clk *clock, opts ...func(*Options)) *Manager {
	t.Helper()
	if keyFile != "" {
		b, err := os.ReadFile(keyFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, KeyFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return newManagerWith(t, dir, clk, func(o *Options) {
		o.DB = dsn
		for _, opt := range opts {
			opt(o)
		}
	})
}

// TestSharedManagers: two managers on one database split the channels,
// issue and send every round once, take results for each other's tasks,
// and when one stops the other carries on with every channel.
func TestSharedManagers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dsn := pgtest.Start(t).DSN
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	a := newSharedManager(t, t.TempDir(), dsn, "", clk)
	b := newSharedManager(t, t.TempDir(), dsn, filepath.Join(a.Dir(), KeyFile), clk)
	if a.ID() != b.ID() {
		t.Fatal("managers with one key have two peer IDs")
	}
	var seeds []string
	for _, h := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"} {
		seeds = append(seeds, "http://"+h+".example/")
	}
	if _, err := a.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	// Each knows the other before it schedules (a lone manager takes
	// every channel, which is safe but not split).
	for _, m := range []*Manager{a, b, a} {
		if err := m.shared.Sync(clk.now()); err != nil {
			t.Fatal(err)
		}
	}
	prof, err := profile.Read(b.ProfilePath())
	if err != nil {
		t.Fatal(err)
	}
	if len(prof.Bootstrap) != len(a.Addrs())+len(b.Addrs()) {
		t.Fatalf("profile names %d addresses, want both managers' %d", len(prof.Bootstrap), len(a.Addrs())+len(b.Addrs()))
	}
	shareA := 0
	for _, s := range seeds {
		id := s[len("http://") : len(s)-1]
		if a.mine(id) == b.mine(id) {
			t.Fatalf("channel %s is in both shares or in neither", id)
		}
		if a.mine(id) {
			shareA++
		}
	}
	if shareA == 0 || shareA == len(seeds) {
		t.Fatalf("manager a has %d of %d channels", shareA, len(seeds))
	}

	// One overlay peer, which both managers reach.
	q, ph := onePeerOverlay(ctx, t, a)
	if err := b.Host().Connect(ctx, ph.Peerstore().PeerInfo(ph.ID())); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(b.sub.EntryPeers()) == 1 })
	round := func(want int) ([]*task.Task, [][]byte) {
		t.Helper()
		done := make(chan error, 2)
		for _, m := range []*Manager{a, b} {
			go func() { done <- m.Tick(ctx) }()
		}
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		tasks, envs := q.take()
		seen := map[string]bool{}
		for _, tk := range tasks {
			if seen[tk.Channel] {
				t.Fatalf("channel %s sent twice in one round", tk.Channel)
			}
			seen[tk.Channel] = true
		}
		if len(tasks) != want {
			t.Fatalf("%d tasks sent, want %d", len(tasks), want)
		}
		return tasks, envs
	}
	tasks, envs := round(len(seeds))

	// Results go to "the manager", whichever of the two the stream
	// reaches; every receipt verifies with the profile key.
	pk, _ := prof.Key()
	up := &upload.Uploader{Host: ph, Storage: a.ID(), Manager: pk, Nickname: "alice"}
	for i, tk := range tasks {
		raw := claimAndUpload(ctx, t, ph, a.ID(), up, tk, envs[i], q.proof(tk.ID), []*task.Page{{URL: tk.Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte("text of " + tk.Channel)}})
		if _, err := upload.VerifyReceipt(raw, pk); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []*Manager{a, b} {
		st, err := m.Status()
		if err != nil {
			t.Fatal(err)
		}
		if st.Tasks["done"] != len(seeds) || st.Stored.Uploads != len(seeds) {
			t.Fatalf("status seen by one manager: %d done, %d uploads; want %d", st.Tasks["done"], st.Stored.Uploads, len(seeds))
		}
	}

	// a stops; once its beat is stale, b takes its share.
	a.Close()
	iv, _ := b.sched.Interval(0)
	clk.add(max(iv, b.shared.ManagerFor()) + time.Second)
	if err := b.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, _ = q.take()
	if len(tasks) != len(seeds) {
		t.Fatalf("after a stopped, b sent %d tasks, want every channel's %d", len(tasks), len(seeds))
	}
	for _, tk := range tasks {
		rec, err := b.db.Task(tk.ID)
		if err != nil || rec.Round != 2 {
			t.Fatalf("task %s: round %d, %v; want round 2", tk.ID, rec.Round, err)
		}
	}
}

// TestStoppedManagerLeavesRoster: a manager that stops takes its beat off
// the roster, so the other takes every channel at its next sync, and a
// manager restarted in its place counts once. Before, the stopped run
// stayed live for ManagerFor (15 s) and, beside its restarted self, kept
// half the channels unsent.
func TestStoppedManagerLeavesRoster(t *testing.T) {
	dsn := pgtest.Start(t).DSN
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	dirA := t.TempDir()
	a := newSharedManager(t, dirA, dsn, "", clk)
	key := filepath.Join(t.TempDir(), KeyFile)
	b0, err := os.ReadFile(filepath.Join(a.Dir(), KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, b0, 0o600); err != nil {
		t.Fatal(err)
	}
	b := newSharedManager(t, t.TempDir(), dsn, key, clk)
	live := func(m *Manager) int {
		t.Helper()
		if err := m.shared.Sync(clk.now()); err != nil {
			t.Fatal(err)
		}
		return m.shared.Live()
	}
	live(a)
	if n := live(b); n != 2 {
		t.Fatalf("b sees %d live managers, want 2", n)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := live(b); n != 1 || !b.mine("a.example") || !b.mine("b.example") || !b.mine("c.example") {
		t.Fatalf("right after a stopped, b sees %d live managers; want 1, with every channel its own", n)
	}
	a2 := newSharedManager(t, dirA, dsn, "", clk) // a restarted, in its own folder
	live(a2)
	if n := live(b); n != 2 {
		t.Fatalf("after a restarted, b sees %d live managers, want 2", n)
	}
}
