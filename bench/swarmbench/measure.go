package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/swarm"
)

// measure runs one swarm until the web is served once or for dur, from
// when the manager gets the hosts: settle after every client is in the
// overlay. The note says how the coordinate variants placed peers and
// hosts.
func measure(ctx context.Context, cfg swarm.Config, dur, settle time.Duration, log *slog.Logger) (swarm.Summary, string, error) {
	var sum swarm.Summary
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return sum, "", err
	}
	closed := false
	closeSwarm := func() error {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		closed = true
		return s.Close(cctx)
	}
	defer func() {
		if !closed {
			closeSwarm()
		}
	}()
	if err := members(ctx, s); err != nil {
		return sum, "", err
	}
	st, err := s.Manager.Status(ctx)
	if err != nil {
		return sum, "", err
	}
	coords := swarm.PlacementOf(st.Swarm) == "coordinates"
	settled := time.After(settle)
	every := time.NewTicker(10 * time.Second)
	defer every.Stop()
	for waiting := true; waiting; {
		select {
		case <-ctx.Done():
			return sum, "", ctx.Err()
		case <-settled:
			waiting = false
		case <-every.C:
			if !coords {
				continue
			}
			if pl, err := s.Placement(ctx); err == nil {
				log.Info("Placement", "held", pl.Held, "clients", pl.Clients, "moves", pl.Moves, "drifts", pl.Drifts, "trained", pl.Trained, "outside", fmt.Sprintf("%.2f", pl.Outside))
			}
		}
	}
	var note string
	var drifts int64 // when the hosts were added
	if coords {
		pl, err := s.Placement(ctx)
		if err != nil {
			return sum, "", err
		}
		log.Info("Placement when the hosts were added", "held", pl.Held, "clients", pl.Clients, "outside", fmt.Sprintf("%.2f", pl.Outside))
		note = fmt.Sprintf(" %d of %d clients held the point their coordinate maps to when the hosts were added (%d on trained bounds, %d moves in all, %d of them drift rejoins after a client's first)", pl.Held, pl.Clients, pl.Trained, pl.Moves, pl.Drifts)
		drifts = pl.Drifts
	}
	if err := s.AddSeeds(ctx); err != nil {
		return sum, "", err
	}
	if boundsNote == "" {
		boundsNote = bounds(s, politeWait) // the same web and layout in every variant
	}
	// The run ends when the web has served as many pages as it has (the
	// whole web crawled once) or after dur, whichever comes first, so
	// pages/s is not capped by the size of the web.
	var total int64
	for _, h := range s.Web.Hosts {
		total += int64(h.Pages)
	}
	tl := newTimeline(s.Web.Hosts)
	start := time.Now()
	deadline := time.After(dur)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return sum, "", ctx.Err()
		case <-deadline:
			done = true
		case <-tick.C:
			web, err := s.Web.Stats(ctx, s.HTTP())
			if err != nil {
				return sum, "", err
			}
			var served int64
			for _, h := range web {
				served += h.Pages
			}
			tl.note(time.Since(start), served, total, web)
			done = served >= total
		}
	}
	note += tl.String()
	byIP, err := s.Web.MaxInFlightByIP(ctx, s.HTTP())
	if err != nil {
		return sum, "", err
	}
	note += fmt.Sprintf("; at most %d requests at once on one address", slices.Max(append(slices.Collect(maps.Values(byIP)), 0)))
	if err := s.Observe(ctx, &sum, time.Since(start)); err != nil {
		return sum, "", err
	}
	hp, err := s.HostPlacement(ctx)
	if err != nil {
		return sum, "", err
	}
	if coords {
		pl, err := s.Placement(ctx)
		if err != nil {
			return sum, "", err
		}
		note += fmt.Sprintf("; %d drift rejoins during the crawl, %d of %d clients holding their point at its end", pl.Drifts-drifts, pl.Held, pl.Clients)
		note += fmt.Sprintf("; %d of %d hosts located from measurements; mean CAN distance from a host to its crawler's mapped coordinate %.3f, to all clients' %.3f;",
			hp.Located, hp.Hosts, hp.OwnerDist, hp.PeerDist)
	}
	note += fmt.Sprintf(" mean emulated RTT from a host to the client that queued its latest task %.1f ms, to all clients %.1f ms", hp.OwnerRTT, hp.ClientRTT)
	// Spot-checks go to members not near the host on purpose: the
	// crawls' round trips are read apart from the stopped manager.
	if err := closeSwarm(); err != nil {
		return sum, "", err
	}
	rep, err := s.Manager.ReadChannels()
	if err != nil {
		return sum, "", err
	}
	if err := s.CountChecksApart(&sum, rep); err != nil {
		return sum, "", err
	}
	note += fmt.Sprintf("; crawls alone (%d pages fetched by spot-checks apart): mean RTT %.1f ms, %.1f ms to all clients, %.1f ms to the nearest", sum.CheckPages, sum.MeanCrawlRTTms, sum.MeanCrawlHostAllRTTms, sum.MeanCrawlNearestRTTms)
	if sum.MeanCrawlNamedRTTms > 0 { // hosts located from measurements
		note += fmt.Sprintf(", %.1f ms to the one measured nearest", sum.MeanCrawlNamedRTTms)
	}
	return sum, note, nil
}

func members(ctx context.Context, s *swarm.Swarm) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		all := true
		for _, c := range s.Clients {
			st, err := c.Status(ctx)
			if err != nil || st.Overlay == nil || !st.Overlay.Member {
				all = false
				break
			}
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("clients did not all join the overlay: %w", ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
