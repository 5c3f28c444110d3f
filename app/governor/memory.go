package governor

import (
	"math"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// ReleaseAfter is how long the client must have crawled and uploaded
// nothing, after start-up or after its last burst of work, before the
// governor returns the heap the Go runtime holds free to the operating
// system (Options.Release). The runtime's own scavenger keeps about twice
// the last live heap resident, which after a crawl is mostly garbage of
// parsed pages; one forced collection per quiet spell (a few milliseconds
// for a client's heap) gives it back.
const ReleaseAfter = 30 * time.Second

// The Go runtime's soft memory limit without a memory cap: what a client
// needs at rest, and a share for each crawl thread, enough for a 10 MiB
// page of any shape being parsed.
const (
	softLimitBase      = 32 << 20
	softLimitPerThread = 16 << 20
)

// softLimit is the Go runtime's soft memory limit under cfg. With a memory
// cap, 80 % of it: the garbage collector works harder before the cap
// pauses crawling. Without one, when always (Options.SoftLimit),
// softLimitBase and softLimitPerThread a thread, and otherwise none. The
// default limit collects a large page as the heap nears it rather than
// when the collector next gets the CPU: beside a CPU-bound program that
// came late enough to add 20 MB to a client's peak. The limit is soft:
// the runtime lets the heap past it rather than spend more than about
// half the CPU collecting.
func softLimit(cfg config.Config, always bool) int64 {
	switch {
	case cfg.Memory > 0:
		return int64(float64(cfg.Memory) * 0.8)
	case always:
		return softLimitBase + int64(max(cfg.Threads, 1))*softLimitPerThread
	}
	return math.MaxInt64
}

// quietLocked reports whether the client has just completed ReleaseAfter
// without moving a byte since it was last busy; moved says whether this
// tick saw bytes. g.mu must be held.
func (g *Governor) quietLocked(now time.Time, moved bool) bool {
	if moved {
		g.busy = now
		return false
	}
	if g.busy.IsZero() || now.Sub(g.busy) < ReleaseAfter {
		return false
	}
	g.busy = time.Time{}
	return true
}

// maxPageOutEvery bounds the wait between two page-outs of a quiet client.
const maxPageOutEvery = 32 * time.Minute

// pageOutLocked reports whether a quiet client should page its code out
// now (Options.PageOut): when its quiet spell began (quiet), then after
// ReleaseAfter, twice that, and so on. g.mu must be held.
func (g *Governor) pageOutLocked(now time.Time, quiet bool) bool {
	switch {
	case quiet:
		g.pageOutEvery = ReleaseAfter
	case !g.busy.IsZero() || now.Before(g.nextPageOut): // busy, or not yet
		return false
	default:
		g.pageOutEvery = min(2*g.pageOutEvery, maxPageOutEvery)
	}
	g.nextPageOut = now.Add(g.pageOutEvery)
	return true
}
