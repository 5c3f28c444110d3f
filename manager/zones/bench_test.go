package zones

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/cputime"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// fakeIDs makes n peer IDs of Ed25519 keys quickly: random public keys
// with no private half, as the manager sees members.
func fakeIDs(tb testing.TB, n int, r *rand.Rand) []peer.ID {
	tb.Helper()
	out := make([]peer.ID, n)
	var pub [32]byte
	for i := range out {
		for j := range pub {
			pub[j] = byte(r.Uint32())
		}
		pk, err := crypto.UnmarshalEd25519PublicKey(pub[:])
		if err != nil {
			tb.Fatal(err)
		}
		if out[i], err = peer.IDFromPublicKey(pk); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// seed stores a map of ids joined at random points at now, as a network
// that has run a while has it, without going through n transactions.
func seed(tb testing.TB, s kv.Store, ids []peer.ID, r *rand.Rand, now time.Time) {
	tb.Helper()
	m := can.NewMap(can.DefaultDim, DefaultTTL)
	for _, id := range ids {
		if _, err := m.Join(pid(id), point(r), now); err != nil {
			tb.Fatal(err)
		}
	}
	err := s.Update(func(tx kv.Tx) error {
		_, err := writeMap(tx.Bucket(Bucket), m, 1)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// benchStores runs bench on a bbolt file and on PostgreSQL.
func benchStores(b *testing.B, bench func(b *testing.B, s kv.Store)) {
	b.Run("store=bolt", func(b *testing.B) {
		s := openBolt(b, filepath.Join(b.TempDir(), "zones.db"))
		defer s.Close()
		bench(b, s)
	})
	b.Run("store=postgres", func(b *testing.B) {
		s := openPostgres(b, pgtest.Start(b).DSN)
		defer s.Close()
		bench(b, s)
	})
}

// BenchmarkRenew: renewals of a 10,000-holder map, each member every
// 10 s of simulated time; CPU per renewal (this process only), the
// certificates and their bytes per grant.
func BenchmarkRenew(b *testing.B) {
	benchStores(b, func(b *testing.B, s kv.Store) {
		const n = 10_000
		r := rand.New(rand.NewPCG(9, 9))
		ids := fakeIDs(b, n, r)
		f := newFixture(b)
		seed(b, s, ids, r, f.clk.Now())
		a := f.authority(b, s, Options{})
		// One round first: every member renewed once, so neighbours'
		// certificates are signed and kept as in a running network.
		for _, id := range ids {
			f.clk.Add(10 * time.Second / n)
			if _, err := a.Renew(id); err != nil {
				b.Fatal(err)
			}
		}
		var certs, bytes int
		cpu := cputime.Process()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			f.clk.Add(10 * time.Second / n)
			g, err := a.Renew(ids[i%n])
			if err != nil {
				b.Fatal(err)
			}
			i++
			for _, raw := range g.Encoded() {
				certs++
				bytes += len(raw)
			}
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(i), "cpu-µs/op")
		b.ReportMetric(float64(certs)/float64(i), "certs/op")
		b.ReportMetric(float64(bytes)/float64(i), "cert-bytes/op")
	})
}

// BenchmarkChurn: a leave and a join (two map writes) in a 10,000-holder
// map; CPU per change and the map's size.
func BenchmarkChurn(b *testing.B) {
	benchStores(b, func(b *testing.B, s kv.Store) {
		const n = 10_000
		r := rand.New(rand.NewPCG(10, 10))
		ids := fakeIDs(b, 2*n, r)
		f := newFixture(b)
		seed(b, s, ids[:n], r, f.clk.Now())
		a := f.authority(b, s, Options{})
		cpu := cputime.Process()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			if _, err := a.Leave(ids[i%n]); err != nil {
				b.Fatal(err)
			}
			if _, err := a.Join(ids[n+i%n], point(r)); err != nil {
				b.Fatal(err)
			}
			ids[i%n], ids[n+i%n] = ids[n+i%n], ids[i%n]
			i++
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(2*i), "cpu-µs/change")
		b.ReportMetric(float64(a.Stats().MapBytes), "map-bytes")
	})
}
