package zones

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/cputime"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// BenchmarkSwarm drives the manager's zone map with a swarm at real
// rates in simulated time (no sleeping): HIVECRAWL_BENCH_MEMBERS members
// (default 10,000), each renewing every 10 s, over
// HIVECRAWL_BENCH_SECONDS simulated seconds (default 180) after one
// round of renewals to warm up. Sessions last HIVECRAWL_BENCH_SESSION
// minutes on average (default 60, exponential); a session ends with a
// graceful leave (70 %) or a crash (30 %, left for Expire), and a new
// member joins in its place at once. A member moves once 60 s after
// joining (to its mapped coordinate, as the client does) and drifts
// once every 6 hours on average; Expire runs every 5 s. Events fall on
// a member's renewal second.
//
// Variants: one manager on a bbolt file, one on PostgreSQL, and two
// managers on one PostgreSQL database (members split between them, each
// manager running Expire). Reported: CPU of this process per renewal, per
// change of shape and per Expire; the database server's CPU per simulated
// second; certificate bytes a member receives per hour; transactions run
// again after a conflict; and members per core. Run it with
// `scripts/bench.sh zones`.
func BenchmarkSwarm(b *testing.B) {
	cfg := swarmConfig{
		members: benchEnv(b, "HIVECRAWL_BENCH_MEMBERS", 10_000),
		seconds: benchEnv(b, "HIVECRAWL_BENCH_SECONDS", 180),
		session: time.Duration(benchEnv(b, "HIVECRAWL_BENCH_SESSION", 60)) * time.Minute,
	}
	b.Run("store=bolt", func(b *testing.B) {
		for range b.N {
			s := openBolt(b, filepath.Join(b.TempDir(), "zones.db"))
			runSwarm(b, cfg, []kv.Store{s}, nil)
			s.Close()
		}
	})
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("store=postgres/managers=%d", k), func(b *testing.B) {
			for range b.N {
				srv := pgtest.Start(b)
				var ss []kv.Store
				for range k {
					ss = append(ss, openPostgres(b, srv.DSN))
				}
				runSwarm(b, cfg, ss, srv)
				for _, s := range ss {
					s.Close()
				}
			}
		})
	}
}

func benchEnv(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("%s=%q: want a positive number", name, v)
		}
		return n
	}
	return def
}

type swarmConfig struct {
	members, seconds int
	session          time.Duration
}

// simMember is one simulated volunteer.
type simMember struct {
	id      peer.ID
	mgr     int       // the manager it asks
	end     time.Time // its session ends
	crash   bool      // by a crash rather than a leave
	moveAt  time.Time // its first move; zero once moved
	driftAt time.Time
}

// swarmTally is what one manager's share of the swarm did and cost.
type swarmTally struct {
	renewals, changes, expires     int
	joins, leaves, crashes, moves  int
	cpuRenew, cpuChange, cpuExpire time.Duration
	certBytes, certs               int
}

func (t *swarmTally) add(o swarmTally) {
	t.renewals += o.renewals
	t.changes += o.changes
	t.expires += o.expires
	t.joins += o.joins
	t.leaves += o.leaves
	t.crashes += o.crashes
	t.moves += o.moves
	t.cpuRenew += o.cpuRenew
	t.cpuChange += o.cpuChange
	t.cpuExpire += o.cpuExpire
	t.certBytes += o.certBytes
	t.certs += o.certs
}

func runSwarm(b *testing.B, cfg swarmConfig, stores []kv.Store, srv *pgtest.Server) {
	b.StopTimer()
	const (
		renewEvery = 10 // seconds
		firstMove  = 60 * time.Second
		driftMean  = 6 * time.Hour
		crashShare = 0.3
	)
	r := rand.New(rand.NewPCG(42, uint64(len(stores))))
	f := newFixture(b)
	n := cfg.members
	// IDs for the first members and every joiner the run can need.
	spare := int(float64(n)*float64(cfg.seconds+renewEvery)/cfg.session.Seconds()*2) + 100
	ids := fakeIDs(b, n+spare, r)
	next := n
	seed(b, stores[0], ids[:n], r, f.clk.Now())
	auths := make([]*Authority, len(stores))
	for i, s := range stores {
		auths[i] = f.authority(b, s, Options{})
	}
	exp := func(mean time.Duration) time.Duration { return time.Duration(r.ExpFloat64() * float64(mean)) }
	start := f.clk.Now()
	// Members sit in the renewal second they renew at; slot k renews
	// at every second s with s mod 10 = k.
	slots := make([][]*simMember, renewEvery)
	for i, id := range ids[:n] {
		m := &simMember{id: id, mgr: i % len(stores), end: start.Add(exp(cfg.session)), crash: r.Float64() < crashShare,
			driftAt: start.Add(exp(driftMean))}
		slots[i%renewEvery] = append(slots[i%renewEvery], m)
	}
	tallies := make([]swarmTally, len(stores))
	measure := func(d *time.Duration, fn func()) {
		c := cputime.Process()
		fn()
		*d += cputime.Process() - c
	}
	got := func(t *swarmTally, g Grant) {
		for _, raw := range g.Encoded() {
			t.certs++
			t.certBytes += len(raw)
		}
	}
	// step runs one manager's share of one simulated second.
	step := func(w int, sec int, members []*simMember, joiners []*simMember, measured bool) error {
		a, t := auths[w], &tallies[w]
		if !measured {
			t = &swarmTally{}
		}
		now := f.clk.Now()
		for _, m := range members {
			if m.mgr != w {
				continue
			}
			var (
				g   Grant
				err error
			)
			switch {
			case !now.Before(m.end):
				continue // left or crashed: handled by the driver
			case !m.moveAt.IsZero() && !now.Before(m.moveAt):
				m.moveAt = time.Time{}
				measure(&t.cpuChange, func() { g, err = a.Move(m.id, point(r)) })
				t.moves++
				t.changes++
			case !now.Before(m.driftAt):
				m.driftAt = now.Add(exp(driftMean))
				measure(&t.cpuChange, func() { g, err = a.Move(m.id, point(r)) })
				t.moves++
				t.changes++
			default:
				measure(&t.cpuRenew, func() { g, err = a.Renew(m.id) })
				t.renewals++
			}
			if err != nil {
				return fmt.Errorf("second %d, member %s: %w", sec, m.id, err)
			}
			got(t, g)
		}
		for _, m := range joiners {
			if m.mgr != w {
				continue
			}
			var (
				g   Grant
				err error
			)
			measure(&t.cpuChange, func() { g, err = a.Join(m.id, point(r)) })
			if err != nil {
				return fmt.Errorf("second %d, joiner %s: %w", sec, m.id, err)
			}
			t.joins++
			t.changes++
			got(t, g)
		}
		if sec%5 == 0 {
			var err error
			measure(&t.cpuExpire, func() { _, err = a.Expire() })
			if err != nil {
				return err
			}
			t.expires++
		}
		return nil
	}

	var wallStart time.Time
	var cpuStart, pgStart time.Duration
	conflicts := func() int {
		c := 0
		for _, s := range stores {
			if p, ok := s.(*kv.Postgres); ok {
				c += p.Retries()
			}
		}
		return c
	}
	conflictStart := 0
	memberSeconds := 0.0
	for sec := 0; sec < renewEvery+cfg.seconds; sec++ {
		measured := sec >= renewEvery
		if sec == renewEvery {
			wallStart, cpuStart, conflictStart = time.Now(), cputime.Process(), conflicts()
			if srv != nil {
				pgStart, _ = srv.CPU()
			}
		}
		slot := slots[sec%renewEvery]
		now := f.clk.Now()
		// Sessions that end now: a leave, or a crash nobody reports.
		var stay, joiners []*simMember
		for _, m := range slot {
			if now.Before(m.end) {
				stay = append(stay, m)
				continue
			}
			if m.crash {
				if measured {
					tallies[m.mgr].crashes++
				}
			} else {
				var g Grant
				var err error
				t := &swarmTally{}
				if measured {
					t = &tallies[m.mgr]
				}
				measure(&t.cpuChange, func() { g, err = auths[m.mgr].Leave(m.id) })
				if err != nil {
					b.Fatal(err)
				}
				t.leaves++
				t.changes++
				got(t, g)
			}
			if next == len(ids) {
				b.Fatalf("out of peer IDs after %d joins", next-n)
			}
			j := &simMember{id: ids[next], mgr: next % len(stores), end: now.Add(exp(cfg.session)), crash: r.Float64() < crashShare,
				moveAt: now.Add(firstMove), driftAt: now.Add(exp(driftMean))}
			next++
			joiners = append(joiners, j)
			stay = append(stay, j)
		}
		slots[sec%renewEvery] = stay
		var wg sync.WaitGroup
		errs := make([]error, len(auths))
		for w := range auths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = step(w, sec, slot, joiners, measured)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		if measured {
			for _, s := range slots {
				memberSeconds += float64(len(s))
			}
		}
		f.clk.Add(time.Second)
	}
	b.StartTimer()
	wall := time.Since(wallStart)
	cpu := cputime.Process() - cpuStart
	var all swarmTally
	for _, t := range tallies {
		all.add(t)
	}
	secs := float64(cfg.seconds)
	perOp := func(d time.Duration, n int) float64 {
		if n == 0 {
			return 0
		}
		return float64(d.Microseconds()) / float64(n)
	}
	b.ReportMetric(float64(all.renewals)/secs, "renewals/s")
	b.ReportMetric(float64(all.changes)/secs, "changes/s")
	if len(auths) == 1 {
		// With two managers at once the process's CPU time cannot be
		// told apart by operation: only the total is reported.
		b.ReportMetric(perOp(all.cpuRenew, all.renewals), "cpu-µs/renewal")
		b.ReportMetric(perOp(all.cpuChange, all.changes)/1000, "cpu-ms/change")
		b.ReportMetric(perOp(all.cpuExpire, all.expires)/1000, "cpu-ms/expire")
	}
	b.ReportMetric(float64(cpu.Milliseconds())/secs, "cpu-ms/s")
	b.ReportMetric(wall.Seconds()/secs, "wall-s/s")
	b.ReportMetric(float64(all.certBytes)/(memberSeconds/secs)/(secs/3600)/1024, "cert-KiB/member-h")
	b.ReportMetric(float64(all.certs)/float64(all.renewals+all.changes), "certs/grant")
	b.ReportMetric(float64(conflicts()-conflictStart), "conflicts")
	if srv != nil {
		if pg, err := srv.CPU(); err == nil {
			b.ReportMetric(float64((pg-pgStart).Milliseconds())/secs, "db-cpu-ms/s")
		}
	}
	var loads, writes int
	for _, a := range auths {
		st := a.Stats()
		loads += st.Loads
		writes += st.Writes
	}
	b.ReportMetric(float64(loads), "map-loads")
	b.ReportMetric(float64(auths[0].Stats().MapBytes), "map-bytes")
	if len(auths) == 1 {
		// Members one core carries: renewals and Expire's scan grow with
		// the swarm, changes of shape with the swarm times the map.
		lin := (all.cpuRenew + all.cpuExpire).Seconds() / secs / float64(n)
		quad := all.cpuChange.Seconds() / secs / float64(n) / float64(n)
		core := (-lin + math.Sqrt(lin*lin+4*quad)) / (2 * quad)
		b.ReportMetric(core, "members/core")
	}
	b.Logf("%d members, %d simulated s: %d renewals, %d joins, %d leaves, %d crashes, %d moves, %d Expire runs; %d map loads, %d map writes; wall %v, CPU %v",
		n, cfg.seconds, all.renewals, all.joins, all.leaves, all.crashes, all.moves, all.expires, loads, writes, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
}
