package manager

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// BenchmarkScheduleRound: the scheduling round of one and of two managers
// sharing a PostgreSQL database that holds HIVECRAWL_BENCH_CHANNELS
// channels (default 1,000,000), of which HIVECRAWL_BENCH_DUE (default
// 20,000) are due. It reports the time to start a manager (rank every
// channel), the round that issues the due channels' tasks and its tasks
// issued per second, and a round with nothing due (the scan alone). Each
// count of managers gets a new server; no overlay, so nothing is sent.
// Run it with `scripts/bench.sh schedule`.
func BenchmarkScheduleRound(b *testing.B) {
	n, due := envInt(b, "HIVECRAWL_BENCH_CHANNELS", 1_000_000), envInt(b, "HIVECRAWL_BENCH_DUE", 20_000)
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("managers=%d", k), func(b *testing.B) {
			for range b.N {
				scheduleRound(b, n, due, k)
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("%s=%q: want a positive number", name, v)
		}
		return n
	}
	return def
}

func scheduleRound(b *testing.B, n, due, k int) {
	b.StopTimer()
	srv := pgtest.Start(b)
	now := time.Now().UTC().Truncate(time.Second)
	clk := &clock{t: now}
	db, err := channels.OpenPostgres(context.Background(), srv.DSN, channels.Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	const batch = 50_000
	every := max(n/due, 1)
	for lo := 0; lo < n; lo += batch {
		var chs []channels.Channel
		for i := lo; i < min(lo+batch, n); i++ {
			id := fmt.Sprintf("h%07d.example", i)
			c := channels.Channel{ID: id, Index: i, Source: channels.SourceSeed, Added: now, Seeds: []string{"http://" + id + "/"},
				MaxDepth: channels.DefaultMaxDepth, ChangeInterval: channels.DefaultPrior, Group: channels.DefaultGroups / 2, LastSubmit: now}
			if i%every == 0 && i/every < due {
				c.LastSubmit = time.Time{}
			}
			chs = append(chs, c)
		}
		if err := db.Import(chs); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	b.Logf("%d channels imported in %v", n, time.Since(start).Round(time.Millisecond))

	var ms []*Manager
	key := ""
	start = time.Now()
	for range k {
		m := newSharedManager(b, b.TempDir(), srv.DSN, key, clk)
		key = filepath.Join(m.Dir(), KeyFile)
		ms = append(ms, m)
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(k), "s/start")
	for _, m := range append(ms, ms...) {
		if err := m.shared.Sync(now); err != nil {
			b.Fatal(err)
		}
	}
	tick := func() time.Duration {
		ctx := context.Background()
		start := time.Now()
		var wg sync.WaitGroup
		for _, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := m.Tick(ctx); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	b.StartTimer()
	issuing := tick()
	b.StopTimer()
	idle := tick()
	st, err := ms[0].db.Stats()
	if err != nil {
		b.Fatal(err)
	}
	issued := 0
	for _, c := range st.Counts {
		issued += c
	}
	if issued != due {
		b.Fatalf("%d tasks issued, want %d", issued, due)
	}
	b.ReportMetric(issuing.Seconds(), "s/round")
	b.ReportMetric(float64(issued)/issuing.Seconds(), "tasks/s")
	b.ReportMetric(idle.Seconds(), "s/idle-round")
	conflicts := 0
	for _, m := range ms {
		conflicts += m.db.Conflicts()
	}
	b.ReportMetric(float64(conflicts), "conflicts")
	for _, m := range ms {
		m.Close()
	}
	b.StartTimer()
}
