package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/swarm"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// presetFootprints runs one swarm per preset (issue 46), every client on
// that preset's limits, and prints each preset's footprint per client:
// idle, before any host is given (memory, CPU, all traffic for a day:
// the overlay's own), then while the web is crawled (resident memory,
// CPU, crawl and upload bytes at that rate for a day, overlay
// connections).
//
// The one change to the presets is busy_threshold 0: every client of the
// swarm runs on one machine, and each would pause for the others' load,
// which a volunteer's machine does not have.
func presetFootprints(ctx context.Context, bin, tmp string, peers, hosts, maxPages int, dur, idle time.Duration, log *slog.Logger) error {
	fmt.Printf("presets: %d clients; idle %v after %v quiet, then crawling %d hosts (largest %d pages) until four fifths of the web is served or %v; per client, mean over clients\n",
		peers, idle, idleWait, hosts, maxPages, dur)
	fmt.Printf("%-9s | %9s %9s %9s %10s %6s | %9s %9s %12s\n", "preset", "RSS MB", "peak MB", "CPU %", "GB/day", "conns", "idle MB", "idle CPU%", "idle MB/day")
	for _, p := range config.Presets() {
		dir := filepath.Join(tmp, "preset-"+p.Name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
		name := p.Name
		cfg := swarm.Config{
			Bin: bin, Dir: dir, Peers: peers, Hosts: hosts, Seed: 11, DeferSeeds: true, OwnBinaries: true,
			Web:         fixture.DemoOptions{MaxPages: maxPages},
			ManagerArgs: []string{"--delay", politeWait.String(), "--coordinates", "--assignment", "can"},
			Client: func(c *config.Config) {
				if err := c.Apply(config.Change{Key: "preset", Value: name}); err != nil {
					panic(err) // the presets are valid: TestPresets
				}
				c.BusyThreshold = 0
				c.Delay = config.Duration(politeWait)
			},
			Logger: log,
		}
		fp, err := presetFootprint(ctx, cfg, dur, idle)
		if err != nil {
			return fmt.Errorf("preset %s: %w", name, err)
		}
		fmt.Printf("%-9s | %9.1f %9.1f %9.2f %10.2f %6.1f | %9.1f %9.2f %12.2f\n", name,
			fp.rss, fp.peak, fp.cpu, fp.bytesPerDay/1e9, fp.conns, fp.idleRSS, fp.idleCPU, fp.idleOverlayPerDay/1e6)
	}
	fmt.Println("CPU in % of one core and GB/day (crawl and upload bytes at that rate for a day) over the seconds a client had a crawl running; conns: overlay peers connected; idle MB/day: all traffic, in and out, while idle (the overlay's own)")
	return nil
}

// footprintOf is one preset's figures, means over the clients.
type footprintOf struct {
	rss, peak, cpu, bytesPerDay, conns  float64
	idleRSS, idleCPU, idleOverlayPerDay float64
}

// counters are one client's cumulative readings at an instant.
type counters struct {
	cpu               float64 // CPU seconds
	transfer, overlay int64   // crawl+upload bytes; overlay bytes in+out
}

func readCounters(ctx context.Context, c *swarm.Client) (counters, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return counters{}, err
	}
	k := counters{cpu: cpuSeconds(c.PID()), transfer: st.Transfer.Total}
	if st.Overlay != nil {
		k.overlay = st.Overlay.BytesIn + st.Overlay.BytesOut
	}
	return k, nil
}

func readAll(ctx context.Context, s *swarm.Swarm) ([]counters, error) {
	out := make([]counters, len(s.Clients))
	for i, c := range s.Clients {
		k, err := readCounters(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		out[i] = k
	}
	return out, nil
}

// presetFootprint runs one swarm under cfg: first idle, its clients
// joined and past their first quiet spell with no host given yet (the
// overlay alone: heartbeats, coordinates), then while its web is crawled.
func presetFootprint(ctx context.Context, cfg swarm.Config, dur, idle time.Duration) (footprintOf, error) {
	var fp footprintOf
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return fp, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.Close(cctx)
	}()
	if err := members(ctx, s); err != nil {
		return fp, err
	}
	n := float64(len(s.Clients))

	// Idle: past the clients' first quiet spell, as in the idle footprint.
	if err := sleep(ctx, idleWait); err != nil {
		return fp, err
	}
	before, err := readAll(ctx, s)
	if err != nil {
		return fp, err
	}
	start := time.Now()
	if err := sleep(ctx, idle); err != nil {
		return fp, err
	}
	after, err := readAll(ctx, s)
	if err != nil {
		return fp, err
	}
	el := time.Since(start).Seconds()
	for i, c := range s.Clients {
		fp.idleCPU += (after[i].cpu - before[i].cpu) / el * 100 / n
		fp.idleOverlayPerDay += float64(after[i].overlay-before[i].overlay+after[i].transfer-before[i].transfer) / el * 86400 / n
		fp.idleRSS += statusMB(c.PID(), "VmRSS")[0] / n
	}

	// Crawling: the web's hosts given to the manager, measured for dur or
	// until the web has served four fifths of its pages once; CPU and
	// bytes over the seconds each client had a crawl running.
	var total int64
	for _, h := range s.Web.Hosts {
		total += int64(h.Pages)
	}
	if err := s.AddSeeds(ctx); err != nil {
		return fp, err
	}
	// Each second, each client's counters: the seconds it had a crawl
	// running from the last reading to this one count towards its rates
	// at work, so that a client waiting for its next task (the manager
	// issues hosts as leases allow) does not lower them.
	last := after
	lastBusy := make([]bool, len(s.Clients))
	var workSecs, workCPU, workBytes float64
	start = time.Now()
	prev := start
	deadline := time.After(dur)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var samples, rssSum, connSum float64
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return fp, ctx.Err()
		case <-deadline:
			done = true
		case <-tick.C:
			now := time.Now()
			dt := now.Sub(prev).Seconds()
			prev = now
			for i, c := range s.Clients {
				rss := statusMB(c.PID(), "VmRSS")[0]
				rssSum += rss
				fp.peak = max(fp.peak, rss)
				st, err := c.Status(ctx)
				if err != nil {
					continue
				}
				if st.Overlay != nil {
					connSum += float64(st.Overlay.Peers)
				}
				k := counters{cpu: cpuSeconds(c.PID()), transfer: st.Transfer.Total}
				busy := len(st.Tasks.Running) > 0
				if busy && lastBusy[i] {
					workSecs += dt
					workCPU += k.cpu - last[i].cpu
					workBytes += float64(k.transfer - last[i].transfer)
				}
				last[i], lastBusy[i] = k, busy
			}
			samples += n
			web, err := s.Web.Stats(ctx, s.HTTP())
			if err != nil {
				return fp, err
			}
			var served int64
			for _, h := range web {
				served += h.Pages
			}
			// Four fifths: the last hosts, crawled by few threads at the
			// politeness wait, are the web's tail, not the preset's.
			done = served*5 >= total*4
		}
	}
	if workSecs == 0 {
		return fp, fmt.Errorf("no client was seen crawling for two readings in a row")
	}
	fp.cpu = workCPU / workSecs * 100
	fp.bytesPerDay = workBytes / workSecs * 86400
	fp.rss, fp.conns = rssSum/max(samples, 1), connSum/max(samples, 1)
	return fp, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
