package zones

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// clock is a settable clock, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// newKey makes a deterministic Ed25519 key and its peer ID.
func newKey(t testing.TB, seed uint64) (crypto.PrivKey, peer.ID) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x5a5a))
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

// peers makes n peer IDs.
func peers(t testing.TB, n int) []peer.ID {
	out := make([]peer.ID, n)
	for i := range out {
		_, out[i] = newKey(t, uint64(1000+i))
	}
	return out
}

// openBolt opens a store in the bbolt file at path.
func openBolt(t testing.TB, path string) kv.Store {
	t.Helper()
	s, err := kv.OpenBolt(path, &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "zone test store"}, Bucket)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openPostgres opens a store of the database at dsn.
func openPostgres(t testing.TB, dsn string) *kv.Postgres {
	t.Helper()
	s, err := kv.OpenPostgres(context.Background(), dsn, "test_zones", Bucket)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stores runs test on a bbolt file and on PostgreSQL (skipped where the
// server is not installed). open returns a new connection to the same
// store each time; the test closes what it opens.
func stores(t *testing.T, test func(t *testing.T, open func() kv.Store)) {
	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "zones.db")
		test(t, func() kv.Store { return openBolt(t, path) })
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		test(t, func() kv.Store { return openPostgres(t, srv.DSN) })
	})
}

// fixture is an authority with a manager key and a clock.
type fixture struct {
	mgr crypto.PrivKey
	clk *clock
}

func newFixture(t testing.TB) *fixture {
	mgr, _ := newKey(t, 1)
	return &fixture{mgr: mgr, clk: &clock{t: t0}}
}

func (f *fixture) authority(t testing.TB, s kv.Store, opts Options) *Authority {
	t.Helper()
	opts.Now = f.clk.Now
	a, err := New(s, f.mgr, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stored reads the map as stored, checked.
func stored(t testing.TB, s kv.Store) *can.Map {
	t.Helper()
	var m *can.Map
	err := s.View(func(tx kv.Tx) error {
		b := tx.Bucket(Bucket)
		v, err := readVersion(b)
		if err != nil {
			return err
		}
		m, err = readMap(b, v, can.DefaultDim, DefaultTTL)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("stored map: %v", err)
	}
	return m
}

// verify checks every certificate of g against the manager's key and
// that Held names only asker; it returns the highest epoch.
func verify(t testing.TB, f *fixture, g Grant, asker peer.ID) uint64 {
	t.Helper()
	var top uint64
	for i, c := range append(append([]zonecert.Cert(nil), g.Held...), g.Others...) {
		if err := c.Verify(f.mgr.GetPublic()); err != nil {
			t.Fatalf("certificate %d: %v", i, err)
		}
		raw := g.Encoded()[i]
		d, err := zonecert.Decode(raw)
		if err != nil || d.Path != c.Path || d.Epoch != c.Epoch {
			t.Fatalf("encoding %d decodes to %+v, %v; want %+v", i, d, err, c)
		}
		top = max(top, c.Epoch)
	}
	for _, c := range g.Held {
		if c.Holder != asker {
			t.Fatalf("held certificate %q names %s, not the asker %s", c.Path, c.Holder, asker)
		}
	}
	for _, c := range g.Others {
		if c.Holder == asker {
			t.Fatalf("certificate %q of the asker among the others", c.Path)
		}
	}
	return top
}

// must(t)(g, err) is g, failing t on an error.
func must(t testing.TB) func(Grant, error) Grant {
	return func(g Grant, err error) Grant {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
}

// point draws a point of the space.
func point(r *rand.Rand) can.Point { return can.Point{r.Float64(), r.Float64(), r.Float64()} }
