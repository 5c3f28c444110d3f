package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/swarm"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// idleFootprint starts a fourth swarm with one small host under tmp and
// measures its clients' idle footprint.
func idleFootprint(ctx context.Context, bin, tmp string, peers int, idle time.Duration, log *slog.Logger) error {
	dir := filepath.Join(tmp, "idle")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	return footprint(ctx, swarm.Config{Bin: bin, Dir: dir, Peers: peers, Hosts: 1, Seed: 11, OwnBinaries: true,
		Web: fixture.DemoOptions{MaxPages: 8}, ManagerArgs: []string{"--coordinates"}, Logger: log}, idle)
}

// footprint measures each client's resident memory and CPU share while the
// swarm is idle (its one small host crawled), from /proc.
func footprint(ctx context.Context, cfg swarm.Config, idle time.Duration) error {
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.Close(cctx)
	}()
	if err := members(ctx, s); err != nil {
		return err
	}
	// The one host crawled, the overlay quiet, and each client past its
	// first quiet spell (governor.ReleaseAfter), as a client idle for
	// long is; with a longer -idle-wait, also past its coordinate's first
	// move.
	time.Sleep(idleWait)
	before := make([]float64, len(s.Clients))
	for i, c := range s.Clients {
		before[i] = cpuSeconds(c.PID())
	}
	start := time.Now()
	profiled := make(chan error, 1)
	if cpuProfile != "" {
		go func() { profiled <- saveProfile(ctx, s.Clients[0], idle, cpuProfile) }()
	} else {
		profiled <- nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(idle):
	}
	if err := <-profiled; err != nil {
		return err
	}
	el := time.Since(start).Seconds()
	var sumRSS, maxCPU, sumCPU, sumAnon, sumFile float64
	var (
		largest    *swarm.Client // the client with the most resident memory
		largestMem []float64     // its VmRSS, RssAnon, RssFile in MB
	)
	perClient := cfg.Logger.Enabled(ctx, slog.LevelInfo) // -v
	cpus := make([]float64, len(s.Clients))
	for i, c := range s.Clients {
		cpu := (cpuSeconds(c.PID()) - before[i]) / el * 100
		cpus[i] = cpu
		mem := statusMB(c.PID(), "VmRSS", "RssAnon", "RssFile")
		if largest == nil || mem[0] > largestMem[0] {
			largest, largestMem = c, mem
		}
		if perClient {
			if st, err := c.Status(ctx); err == nil && st.Overlay != nil {
				cfg.Logger.Info("Idle client", "client", c.Name, "rss", mem[0], "anon", mem[1], "file", mem[2], "cpu", cpu,
					"pages", st.Pages.Total, "peers", st.Overlay.Peers, "neighbours", len(st.Overlay.Neighbours), "zones", len(st.Overlay.Zones))
			}
		}
		sumRSS += mem[0]
		maxCPU, sumCPU = max(maxCPU, cpu), sumCPU+cpu
		sumAnon += mem[1]
		sumFile += mem[2]
	}
	n := float64(len(s.Clients))
	slices.Sort(cpus)
	fmt.Printf("idle client, %d clients in the swarm, %.0f s after joining, over %.0f s: RSS mean %.1f MB (anonymous %.1f, executable %.1f) max %.1f MB (goal ≤ 40); CPU mean %.2f %% median %.2f %% max %.2f %% of a core (goal ≤ 0.5)\n",
		len(s.Clients), idleWait.Seconds(), el, sumRSS/n, sumAnon/n, sumFile/n, largestMem[0], sumCPU/n, cpus[len(cpus)/2], maxCPU)
	fmt.Printf("largest idle client %s: RSS %.1f MB (anonymous %.1f, executable %.1f)\n", largest.Name, largestMem[0], largestMem[1], largestMem[2])
	return nil
}

// cpuSeconds returns a process's user plus system CPU time.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// Fields after the command: state is f[0]; utime f[11], stime f[12].
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // USER_HZ is 100 on Linux
}

// statusMB returns the given memory fields of a process's
// /proc/PID/status in MB, in their order (0 for one not there).
func statusMB(pid int, fields ...string) []float64 {
	out := make([]float64, len(fields))
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if i := slices.Index(fields, name); ok && i >= 0 {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				out[i] = kb / 1024
			}
		}
	}
	return out
}

// saveProfile writes client c's CPU profile over d to path, from its local
// API's /debug/pprof/profile.
func saveProfile(ctx context.Context, c *swarm.Client, d time.Duration, path string) error {
	u := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", c.API.URL, int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set(loopback.TokenHeader, c.API.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("CPU profile of %s: %w", c.Name, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("CPU profile of %s: %s", c.Name, res.Status)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("CPU profile of %s: %w", c.Name, err)
	}
	return os.WriteFile(path, b, 0o644)
}
