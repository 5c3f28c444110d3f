package governor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/task"
)

// script is a Sampler that returns its readings in order, then repeats the
// last one; push replaces what is left.
type script struct {
	mu       sync.Mutex // guards readings
	readings []Reading
}

func (s *script) Sample(context.Context) (Reading, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.readings[0]
	if len(s.readings) > 1 {
		s.readings = s.readings[1:]
	}
	return r, nil
}

func (s *script) push(rs ...Reading) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readings = rs
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// monday is 2026-11-23 10:00:00.5 local time, a Monday.
var monday = time.Date(2026, 11, 23, 10, 0, 0, 5e8, time.Local)

func newTest(t *testing.T, cfg config.Config, rs ...Reading) (*Governor, *script, *clock) {
	t.Helper()
	if len(rs) == 0 {
		rs = []Reading{{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}}
	}
	s := &script{readings: rs}
	c := &clock{t: monday}
	g, err := New(context.Background(), cfg, Options{Sampler: s, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return g, s, c
}

func ticks(t *testing.T, g *Governor, c *clock, n int) {
	t.Helper()
	for range n {
		c.Add(time.Second)
		if err := g.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPauseReasons(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*config.Config)
		reading Reading
		ticks   int
		down    int64 // bytes through the download bucket before ticking
		want    string
		pause   string // the reason's kind (Status.Pauses)
	}{
		{"running", nil, Reading{TotalCPU: 10, ProcessCPU: 2}, 3, 0, "", ""},
		{"explicit pause", func(c *config.Config) { c.Paused = true }, Reading{}, 1, 0, "Paused by you", PausePaused},
		{"held: damaged settings", func(c *config.Config) { c.Held = "the settings file is damaged" }, Reading{}, 1, 0, "Paused: the settings file is damaged", PauseHeld},
		{"snooze", func(c *config.Config) { c.SnoozeUntil = monday.Add(125 * time.Minute) }, Reading{}, 1, 0, "Snoozed until 12:05", PauseSnoozed},
		{"snooze to another day", func(c *config.Config) { c.SnoozeUntil = time.Date(2026, 11, 24, 0, 0, 0, 0, time.Local) }, Reading{}, 1, 0, "Snoozed until Tue 00:00", PauseSnoozed},
		{"outside schedule", func(c *config.Config) {
			c.Schedule.Windows = []config.Window{{Start: 18 * 60, End: 23 * 60}}
		}, Reading{}, 1, 0, "Paused: outside the crawl schedule until 18:00", PauseSchedule},
		{"other programs busy", nil, Reading{TotalCPU: 70, ProcessCPU: 7}, BusyAfter, 0, "Paused: other programs are using 63 % CPU", PauseBusy},
		{"busy but not long enough", nil, Reading{TotalCPU: 70, ProcessCPU: 7}, BusyAfter - 1, 0, "", ""},
		{"busy check off", func(c *config.Config) { c.BusyThreshold = 0 }, Reading{TotalCPU: 99}, 10, 0, "", ""},
		{"memory cap", func(c *config.Config) { c.Memory = 512e6 }, Reading{RSS: 612e6}, 1, 0, "Paused: Hivecrawl is using 612 MB of memory, over its cap of 512 MB", PauseMemory},
		{"daily quota", func(c *config.Config) { c.DailyQuota = 500e6 }, Reading{}, 1, 500e6, "Paused: daily transfer quota of 500 MB reached", PauseDailyQuota},
		{"under daily quota", func(c *config.Config) { c.DailyQuota = 500e6 }, Reading{}, 1, 499e6, "", ""},
		{"monthly quota", func(c *config.Config) { c.MonthlyQuota = 10e9; c.QuotaResetDay = 15 }, Reading{}, 1, 10e9, "Paused: monthly transfer quota of 10.0 GB reached (resets 15 Dec)", PauseMonthlyQuota},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			g, _, c := newTest(t, cfg, tt.reading)
			if err := g.Down().WaitN(context.Background(), int(tt.down)); err != nil {
				t.Fatal(err)
			}
			ticks(t, g, c, tt.ticks)
			st := g.Status()
			got := strings.Join(st.Reasons, "; ")
			if tt.want == "" {
				if st.State == Paused {
					t.Fatalf("paused: %q", got)
				}
				return
			}
			if st.State != Paused || got != tt.want {
				t.Fatalf("state %s, reasons %q; want paused, %q", st.State, got, tt.want)
			}
			if len(st.Pauses) != 1 || st.Pauses[0] != tt.pause {
				t.Fatalf("pauses %q, want [%s]", st.Pauses, tt.pause)
			}
		})
	}
}

func TestBusyHysteresis(t *testing.T) {
	cfg := config.Default() // threshold 25, hysteresis 10
	g, s, c := newTest(t, cfg, Reading{TotalCPU: 40, ProcessCPU: 5})
	ticks(t, g, c, BusyAfter)
	if p, _ := g.Paused(); !p {
		t.Fatal("not paused after sustained load")
	}
	// 20 % is under the threshold but inside the hysteresis band: stay paused.
	s.push(Reading{TotalCPU: 20})
	ticks(t, g, c, CalmAfter+2)
	if p, _ := g.Paused(); !p {
		t.Fatal("resumed inside the hysteresis band")
	}
	s.push(Reading{TotalCPU: 10})
	ticks(t, g, c, CalmAfter-1)
	if p, _ := g.Paused(); !p {
		t.Fatal("resumed before enough calm readings")
	}
	ticks(t, g, c, 1)
	if p, r := g.Paused(); p {
		t.Fatalf("still paused after calm: %v", r)
	}
}

func TestMemoryResumesBelowCap(t *testing.T) {
	cfg := config.Default()
	cfg.Memory = 100 << 20
	g, s, c := newTest(t, cfg, Reading{RSS: 120 << 20})
	ticks(t, g, c, 1)
	s.push(Reading{RSS: 95 << 20}) // under the cap, above 90 % of it
	ticks(t, g, c, 2)
	if p, _ := g.Paused(); !p {
		t.Fatal("resumed just under the cap")
	}
	s.push(Reading{RSS: 80 << 20})
	ticks(t, g, c, 1)
	if p, _ := g.Paused(); p {
		t.Fatal("still paused well under the cap")
	}
}

func TestReleaseWhenQuiet(t *testing.T) {
	s := &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}}}
	c := &clock{t: monday}
	released := 0
	g, err := New(context.Background(), config.Default(), Options{Sampler: s, Now: c.Now, Release: func() { released++ }})
	if err != nil {
		t.Fatal(err)
	}
	step := func(name string, secs int, want int) {
		t.Helper()
		ticks(t, g, c, secs)
		if released != want {
			t.Fatalf("%s: released %d times, want %d", name, released, want)
		}
	}
	quiet := int(ReleaseAfter / time.Second)
	step("start-up, not yet quiet long enough", quiet-1, 0)
	step("quiet since start-up", 1, 1)
	step("still quiet: nothing new to give back", 2*quiet, 1)
	for range quiet { // a crawl: bytes every second
		if err := g.Down().WaitN(context.Background(), 1000); err != nil {
			t.Fatal(err)
		}
		step("crawling", 1, 1)
	}
	if err := g.Up().WaitN(context.Background(), 10); err != nil { // the result's upload
		t.Fatal(err)
	}
	step("upload", 1, 1)
	step("quiet, not long enough", quiet-1, 1)
	step("quiet after the crawl", 1, 2)
	step("quiet on", 3*quiet, 2)
}

func TestCPUCapThrottles(t *testing.T) {
	cfg := config.Default()
	cfg.CPU = 20
	g, s, c := newTest(t, cfg, Reading{TotalCPU: 40, ProcessCPU: 25})
	var prev float64
	for i := range 3 {
		ticks(t, g, c, 1)
		st := g.Status()
		if st.Throttle <= prev {
			t.Fatalf("tick %d: throttle %v did not rise from %v", i, st.Throttle, prev)
		}
		prev = st.Throttle
	}
	if st := g.Status(); st.State != Throttled || !strings.Contains(st.Reasons[0], "20 % CPU") || st.Throttle > MaxThrottle {
		t.Fatalf("status %+v", st)
	}
	s.push(Reading{TotalCPU: 5, ProcessCPU: 2})
	ticks(t, g, c, 20)
	if st := g.Status(); st.Throttle != 0 || st.State != Running {
		t.Fatalf("throttle did not relax: %+v", st)
	}
}

func TestThrottledAtBandwidthCap(t *testing.T) {
	cfg := config.Default()
	cfg.Download = 100_000
	g, _, c := newTest(t, cfg)
	g.Down().SetRate(0) // count without waiting; the cap shown is cfg's
	g.Down().WaitN(context.Background(), 95_000)
	ticks(t, g, c, 1) // 95 000 bytes in one second: 95 % of the cap
	g.Apply(cfg)
	st := g.Status()
	if st.State != Throttled || len(st.Reasons) != 1 || st.Reasons[0] != "Throttled: download at its cap of 100 KB/s" {
		t.Fatalf("status %+v", st)
	}
	ticks(t, g, c, 1) // nothing in the next second
	if st := g.Status(); st.State != Running || st.DownRate != 0 {
		t.Fatalf("status after an idle second %+v", st)
	}
}

func TestWaitDutyCycle(t *testing.T) {
	cfg := config.Default()
	cfg.CPU = 20
	s := &script{readings: []Reading{{TotalCPU: 40, ProcessCPU: 40}}}
	c := &clock{t: time.Unix(1_800_000_000, 0)} // the start of a period
	g, err := New(context.Background(), cfg, Options{Sampler: s, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if share := g.Status().Throttle; share != 0.5 {
		t.Fatalf("throttle %v, want 0.5", share)
	}
	// A cancelled context shows whether Wait would block: it returns nil
	// at once only when the gate is open.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	c.Add(100 * time.Millisecond)
	if err := g.Wait(cancelled); err == nil {
		t.Fatal("gate open in the held-back half of the period")
	}
	c.Add(500 * time.Millisecond)
	if err := g.Wait(cancelled); err != nil {
		t.Fatalf("gate closed in the open half of the period: %v", err)
	}
}

func TestOffFor(t *testing.T) {
	base := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name  string
		at    time.Duration
		share float64
		want  time.Duration
	}{
		{"no throttle", 0, 0, 0},
		{"start of period", 0, 0.3, 300 * time.Millisecond},
		{"inside off part", 100 * time.Millisecond, 0.3, 200 * time.Millisecond},
		{"in on part", 300 * time.Millisecond, 0.3, 0},
		{"end of period", 999 * time.Millisecond, 0.95, 0},
	}
	for _, tt := range tests {
		if got := offFor(base.Add(tt.at), tt.share, time.Second); got != tt.want {
			t.Errorf("%s: offFor = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWaitBlocksWhilePaused(t *testing.T) {
	cfg := config.Default()
	cfg.Paused = true
	g, _, _ := newTest(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	released := make(chan error, 1)
	go func() { released <- g.Wait(ctx) }()
	select {
	case err := <-released:
		t.Fatalf("Wait returned while paused: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	cfg.Paused = false
	g.Apply(cfg)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	cfg.Paused = true
	g.Apply(cfg)
	go func() { released <- g.Wait(ctx) }()
	cancel()
	if err := <-released; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel = %v", err)
	}
}

func TestScheduleAlternateCaps(t *testing.T) {
	cfg := config.Default()
	cfg.Download = 1e6
	cfg.Upload = 2e5
	cfg.Schedule.Windows = []config.Window{
		{Start: 9 * 60, End: 17 * 60, Download: 1e5},
		{Start: 17 * 60, End: 9 * 60},
	}
	g, _, c := newTest(t, cfg)
	if g.Down().Rate() != 1e5 || g.Up().Rate() != 2e5 {
		t.Fatalf("inside the day window: down %d up %d", g.Down().Rate(), g.Up().Rate())
	}
	c.Add(8 * time.Hour) // 18:00
	ticks(t, g, c, 1)
	if g.Down().Rate() != 1e6 {
		t.Fatalf("evening window: down %d", g.Down().Rate())
	}
	if p, r := g.Paused(); p {
		t.Fatalf("paused inside a window: %v", r)
	}
}

func TestUsageRollsAndPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	cfg := config.Default()
	c := &clock{t: time.Date(2026, 11, 30, 23, 59, 0, 0, time.Local)}
	s := &script{readings: []Reading{{}}}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := New(ctx, cfg, Options{Sampler: s, Now: c.Now, UsageFile: path, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	g.Up().WaitN(ctx, 1000)
	g.Down().WaitN(ctx, 500)
	ticks(t, g, c, 1) // 23:59:01 on 30 Nov
	if u := g.Status().Usage; u.DayBytes != 1500 || u.MonthBytes != 1500 || u.Day != "2026-11-30" {
		t.Fatalf("usage %+v", u)
	}
	c.Add(time.Minute) // 1 Dec: new day and new month (reset day 1)
	g.Down().WaitN(ctx, 7)
	ticks(t, g, c, 1)
	u := g.Status().Usage
	if u.DayBytes != 7 || u.MonthBytes != 7 || u.TotalBytes != 1507 || u.Month != "2026-12-01" {
		t.Fatalf("after midnight: %+v", u)
	}
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, nil) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	g2, err := New(context.Background(), cfg, Options{Sampler: s, Now: c.Now, UsageFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if u2 := g2.Status().Usage; u2 != u {
		t.Fatalf("restored %+v, want %+v", u2, u)
	}
}

func TestServeAppliesUpdates(t *testing.T) {
	g, _, _ := newTest(t, config.Default())
	updates := make(chan config.Config)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, updates) }()
	cfg := config.Default()
	cfg.Download = 123456
	cfg.Connections = 4
	updates <- cfg
	updates <- cfg // the second send returns only after the first was applied
	cancel()
	<-done
	if g.Down().Rate() != 123456 || g.Conns().Cap() != 4 {
		t.Fatalf("down %d conns %d", g.Down().Rate(), g.Conns().Cap())
	}
}

func TestConns(t *testing.T) {
	c := NewConns(2)
	ctx := context.Background()
	if !c.TryAcquire() || c.Acquire(ctx) != nil {
		t.Fatal("could not take two slots")
	}
	if c.TryAcquire() {
		t.Fatal("took a third slot under a cap of 2")
	}
	got := make(chan error, 1)
	go func() { got <- c.Acquire(ctx) }()
	select {
	case <-got:
		t.Fatal("Acquire did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	c.Release()
	if err := <-got; err != nil || c.Open() != 2 {
		t.Fatalf("Acquire after Release: %v, open %d", err, c.Open())
	}
	c.SetCap(0)
	if !c.TryAcquire() || c.Open() != 3 {
		t.Fatal("no cap still refused")
	}
}

func TestConnsDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	c := NewConns(1)
	var d net.Dialer
	dial := c.Dial(d.DialContext)
	conn, err := dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := dial(ctx, "tcp", ln.Addr().String()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second dial under cap 1: %v", err)
	}
	conn.Close()
	conn.Close() // a second Close must not free a second slot
	if c.Open() != 0 {
		t.Fatalf("open = %d after close", c.Open())
	}
	if _, err := dial(context.Background(), "tcp", "127.0.0.1:1"); err == nil {
		t.Skip("something listens on port 1")
	}
	if c.Open() != 0 {
		t.Fatalf("failed dial kept a slot: %d", c.Open())
	}
}

func TestRealSampler(t *testing.T) {
	ctx := context.Background()
	s, err := NewSystemSampler(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Burn a little CPU so the process reading has something to see.
	deadline := time.Now().Add(300 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	r, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("real reading: %+v (spins %d)", r, x)
	if r.RSS <= 0 || r.TotalCPU < 0 || r.TotalCPU > 100 || r.ProcessCPU < 0 || r.ProcessCPU > 100 {
		t.Fatalf("implausible reading %+v", r)
	}
	if r.ProcessCPU == 0 {
		t.Error("process CPU reads 0 after a busy loop")
	}
	g, err := New(ctx, config.Default(), Options{Sampler: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if st := g.Status(); st.RSS <= 0 {
		t.Fatalf("status from real readings: %+v", st)
	}
	_ = os.Getpid()
}

// A crash loses only what moved since the last of the writes Serve makes
// every usageSaveEvery (a twentieth of a second): the counters on disk hold
// every byte metered before it, without waiting for a tick.
func TestUsageSurvivesCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	cfg := config.Default()
	c := &clock{t: time.Date(2026, 11, 24, 12, 0, 0, 0, time.Local)}
	s := &script{readings: []Reading{{}}}
	ctx := context.Background()
	g, err := New(ctx, cfg, Options{Sampler: s, Now: c.Now, UsageFile: path, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var moved int64
	for range 10 {
		g.Down().WaitN(ctx, 1000)
		moved += 1000
		g.persistUsage()
	}
	g.Down().WaitN(ctx, 500) // moved after the last write: lost
	// The process dies here: no tick, no final save.
	g2, err := New(ctx, cfg, Options{Sampler: s, Now: c.Now, UsageFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := g2.Status().Usage.DayBytes; got != moved {
		t.Fatalf("after a crash the counters hold %d bytes, want the %d metered before the last write", got, moved)
	}
	if usageSaveEvery > time.Second {
		t.Errorf("counters written every %v: a crash may lose more than a second of transfer", usageSaveEvery)
	}
}

// Damaged counters are moved aside with one line, not a failure to start.
func TestUsageDamagedMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "usage.json")
	os.WriteFile(path, []byte(`{"day_bytes": 12, "mon`), 0o600)
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	g, err := New(context.Background(), config.Default(), Options{Sampler: &script{readings: []Reading{{}}}, UsageFile: path, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if u := g.Status().Usage; u.DayBytes != 0 {
		t.Errorf("usage %+v from a damaged file", u)
	}
	aside, _ := filepath.Glob(path + ".broken-*")
	if len(aside) != 1 || strings.Count(logs.String(), "\n") != 1 || !strings.Contains(logs.String(), "moved aside") {
		t.Errorf("moved aside %v, log %q: want the file moved aside with one line", aside, logs.String())
	}
}

// A quiet client pages its code out when its quiet spell begins, then
// after ReleaseAfter, twice that, and so on; bytes moving start it over.
func TestPageOutWhileQuiet(t *testing.T) {
	s := &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}}}
	c := &clock{t: monday}
	var at []int // seconds since start of each page-out
	start := c.t
	g, err := New(context.Background(), config.Default(), Options{Sampler: s, Now: c.Now, Release: func() {},
		PageOut: func() { at = append(at, int(c.t.Sub(start)/time.Second)) }})
	if err != nil {
		t.Fatal(err)
	}
	q := int(ReleaseAfter / time.Second)
	ticks(t, g, c, 8*q)
	if want := []int{q, 2 * q, 4 * q, 8 * q}; !slices.Equal(at, want) {
		t.Fatalf("paged out at %v s, want %v", at, want)
	}
	if err := g.Down().WaitN(context.Background(), 1000); err != nil { // a crawl
		t.Fatal(err)
	}
	ticks(t, g, c, 1)
	at = nil
	ticks(t, g, c, 2*q)
	if want := []int{9*q + 1, 10*q + 1}; !slices.Equal(at, want) {
		t.Fatalf("after a crawl, paged out at %v s, want %v", at, want)
	}
}

// countingSampler counts its readings and moves the clock a second on
// with each, so Serve's ticks pass the client's time.
type countingSampler struct {
	c *clock
	n atomic.Int64
}

func (s *countingSampler) Sample(context.Context) (Reading, error) {
	s.n.Add(1)
	s.c.Add(time.Second)
	return Reading{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}, nil
}

// Once quiet, Serve samples less often; a crawl that asks to go brings a
// reading at once and the short interval back.
func TestQuietClientSamplesLess(t *testing.T) {
	c := &clock{t: monday}
	s := &countingSampler{c: c}
	g := serving(t, Options{Sampler: s, Now: c.Now, Interval: 5 * time.Millisecond})
	slow := func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.slow }
	waitUntil(t, "quiet sampling", slow)
	before := s.n.Load()
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a reading after the crawl asked to go", func() bool { return s.n.Load() > before })
	if err := g.Down().WaitN(context.Background(), 1000); err != nil { // the crawl moves bytes
		t.Fatal(err)
	}
	n := s.n.Load()
	waitUntil(t, "two more readings", func() bool { return s.n.Load() >= n+2 })
	if slow() {
		t.Fatal("sampling slowly while bytes move")
	}
}

// serving returns a governor with opts (releasing and paging out
// nothing) whose Serve runs until t ends.
func serving(t *testing.T, opts Options) *Governor {
	t.Helper()
	opts.Release, opts.PageOut = func() {}, func() {}
	g, err := New(context.Background(), config.Default(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	return g
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Bytes that move after a pause reach the counters file at once, not at
// the next sample: a crash then loses at most usageSaveEvery of them.
func TestCountersWrittenWhenBytesMoveAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	s := &script{readings: []Reading{{TotalCPU: 5, ProcessCPU: 1, RSS: 50 << 20}}}
	g := serving(t, Options{Sampler: s, Interval: time.Hour, UsageFile: path})
	time.Sleep(10 * usageSaveEvery) // the first write finds nothing moved, and writing stops
	for round, want := range []int64{1000, 3000} {
		if err := g.Down().WaitN(context.Background(), int(want)-int(g.Down().Total())); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, fmt.Sprintf("%d bytes in the counters file", want), func() bool {
			u, err := loadUsage(path)
			return err == nil && u.TotalBytes == want
		})
		if round == 0 {
			time.Sleep(10 * usageSaveEvery) // a pause: writing stops again
		}
	}
}

// TestStateChangeLoggedOnce: a pause for other programs' load is logged
// when it begins and when it ends, not at every reading of their share.
func TestStateChangeLoggedOnce(t *testing.T) {
	g, s, c := newTest(t, config.Default(), Reading{TotalCPU: 40, ProcessCPU: 5})
	var buf strings.Builder // Tick logs on the test's goroutine
	g.opts.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	ticks(t, g, c, BusyAfter)
	for i := range 10 { // the share moves at every reading
		s.push(Reading{TotalCPU: float64(41 + i), ProcessCPU: 5})
		ticks(t, g, c, 1)
	}
	if p, r := g.Paused(); !p || !strings.Contains(r[0], "45 %") {
		t.Fatalf("paused %v for %q, want the latest share shown", p, r)
	}
	s.push(Reading{TotalCPU: 5})
	ticks(t, g, c, CalmAfter)
	if n := strings.Count(buf.String(), "Crawling state changed"); n != 2 {
		t.Fatalf("state change logged %d times, want 2 (paused, resumed):\n%s", n, buf.String())
	}
}

// TestChallengePause: a volunteer that sites challenge as a bot in a
// quarter of its crawls pauses, with the reason, until the challenges
// are an hour old; a few challenges among many crawls do not pause it.
func TestChallengePause(t *testing.T) {
	g, _, c := newTest(t, config.Default())
	for range 8 {
		g.TaskEnded("")
	}
	g.TaskEnded(task.StrikeChallenge)
	g.TaskEnded(task.StrikeChallenge)
	if p, why := g.Paused(); p {
		t.Fatalf("paused after 2 challenges: %q", why)
	}
	c.Add(time.Minute)
	g.TaskEnded(task.StrikeChallenge)
	st := g.Status()
	if st.Challenges != 3 || st.TasksEnded != 11 {
		t.Fatalf("status counts %d challenges of %d crawls, want 3 of 11", st.Challenges, st.TasksEnded)
	}
	if p, _ := g.Paused(); !p {
		t.Fatal("not paused after 3 challenges in 11 crawls")
	}
	if !slices.Contains(st.Pauses, PauseChallenged) || !strings.Contains(strings.Join(st.Reasons, " "), "challenged this computer") {
		t.Fatalf("pause kinds %q, reasons %q", st.Pauses, st.Reasons)
	}
	c.Add(ChallengeWindow - 30*time.Second) // the first two are an hour old, the third is not
	ticks(t, g, c, 1)
	if p, why := g.Paused(); p {
		t.Fatalf("still paused an hour after the challenges: %q", why)
	}
	// Many crawls dilute a few challenges below the share.
	g2, _, _ := newTest(t, config.Default())
	for range 20 {
		g2.TaskEnded("")
	}
	for range 3 {
		g2.TaskEnded(task.StrikeChallenge)
	}
	if p, why := g2.Paused(); p {
		t.Fatalf("paused with 3 challenges in 23 crawls: %q", why)
	}
}

// TestSoftLimit: the Go runtime's soft memory limit is 80 % of a memory
// cap; without a cap it is the client's own (base and a share a thread)
// only for a process that is the client's alone, and none otherwise.
func TestSoftLimit(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	cfg := config.Default()
	for _, tc := range []struct {
		name   string
		memory config.Bytes
		always bool
		want   int64
	}{
		{"cap", 500e6, false, 400e6},
		{"cap, own process", 500e6, true, 400e6},
		{"no cap, own process", 0, true, softLimitBase + 3*softLimitPerThread},
		{"no cap, shared process", 0, false, math.MaxInt64},
	} {
		c := cfg
		c.Memory = tc.memory
		s := &script{readings: []Reading{{}}}
		if _, err := New(context.Background(), c, Options{Sampler: s, SoftLimit: tc.always}); err != nil {
			t.Fatal(err)
		}
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("%s: runtime's soft limit %d, want %d", tc.name, got, tc.want)
		}
	}
}
