package botkeys

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// clock is a test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// TestSharedWithdrawal: two registries on one PostgreSQL database, as two
// managers sharing it have. A key certified through one is in the other's
// directory; withdrawn through the other, it counts as withdrawn at the
// first at once and leaves the first's directory within
// DirectoryRefresh.
func TestSharedWithdrawal(t *testing.T) {
	dsn := pgtest.Start(t).DSN
	clk := &clock{t: t0}
	a := openPostgres(t, dsn, "", clk.now)
	b := openPostgres(t, dsn, "", clk.now)
	pub, _ := newKey(t)
	keyid, err := a.Certify("peerA", pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !live(t, a)[keyid] || !live(t, b)[keyid] {
		t.Fatalf("key certified through a: in a's directory %v, in b's %v", live(t, a)[keyid], live(t, b)[keyid])
	}
	if withdrawn(t, a, "peerA") {
		t.Fatal("a certified peer counts as withdrawn")
	}

	if err := b.Withdraw("peerA", "cheated", t0); err != nil {
		t.Fatal(err)
	}
	if !withdrawn(t, a, "peerA") {
		t.Error("withdrawn through b, the peer does not count as withdrawn at a")
	}
	if live(t, b)[keyid] {
		t.Error("b's directory lists the key b withdrew")
	}
	if st, err := a.Status(keyid); err != nil || st.Live() || st.Reason != "cheated" {
		t.Errorf("a's Status = %+v, %v; want withdrawn for cheating", st, err)
	}
	clk.add(DirectoryRefresh)
	if live(t, a)[keyid] {
		t.Errorf("a's directory lists the key withdrawn through b %v later", DirectoryRefresh)
	}
	pub2, _ := newKey(t)
	if _, err := a.Certify("peerA", pub2, t0); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("a certified a new key of the peer withdrawn through b: %v", err)
	}
}

// TestDirectoryCache: a registry serves the directory it read for
// DirectoryRefresh, except after a change made through it.
func TestDirectoryCache(t *testing.T) {
	clk := &clock{t: t0}
	dir := t.TempDir()
	file, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := New(file.db, clk.now) // the same store, with the test clock
	defer r.Close()
	pubA, _ := newKey(t)
	idA, err := r.Certify("peerA", pubA, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !live(t, r)[idA] {
		t.Fatal("the key just certified is not in the directory")
	}
	// A change the registry did not make (another manager's, on a shared
	// store) shows once the cached copy is DirectoryRefresh old.
	other := New(file.db, clk.now)
	pubB, _ := newKey(t)
	idB, err := other.Certify("peerB", pubB, t0)
	if err != nil {
		t.Fatal(err)
	}
	clk.add(DirectoryRefresh - time.Millisecond)
	if live(t, r)[idB] {
		t.Fatal("the directory was read again before DirectoryRefresh")
	}
	clk.add(time.Millisecond)
	if !live(t, r)[idB] {
		t.Fatalf("the directory lacks a key certified elsewhere %v ago", DirectoryRefresh)
	}
	// A clock that went back does not keep the copy.
	if err := other.Withdraw(idB, "left", t0); err != nil {
		t.Fatal(err)
	}
	clk.add(-time.Hour)
	if live(t, r)[idB] {
		t.Fatal("a clock turned back kept the cached directory")
	}
}
