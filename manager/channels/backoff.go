package channels

import (
	"math/rand/v2"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Back-off held at the lease (docs/developer/leases.md, "Back-off"). A crawl that
// stopped to spare its host (task.Result.Strike: a 429 or 503 without
// Retry-After, a run of server errors or timeouts, a challenge) rests the
// host for every crawler: StrikeRest at the first strike, doubling at each
// strike in a row up to MaxStrikeRest, with up to a fifth more of jitter so
// that hosts struck together do not come back together. A host with no
// strike for StrikeForgiven starts again from the first.
const (
	StrikeRest     = 60 * time.Second
	MaxStrikeRest  = 24 * time.Hour
	StrikeForgiven = 30 * time.Minute
	strikeJitter   = 0.2
)

// strikeRest is the rest of the n-th strike in a row (n ≥ 1), with
// jitter u in [0, 1) adding up to strikeJitter of it.
func strikeRest(n int, u float64) time.Duration {
	d := StrikeRest
	for i := 1; i < n && d < MaxStrikeRest; i++ {
		d *= 2
	}
	d = min(d, MaxStrikeRest)
	return d + time.Duration(float64(d)*strikeJitter*u)
}

// strike records on hl a result's strike at now: the host rests for the
// strike's rest unless it already rests longer. A result without one
// forgives the strikes once StrikeForgiven has passed since the last.
func (hl *hostLease) strike(kind string, now time.Time, u float64) {
	if !hl.Struck.IsZero() && now.Sub(hl.Struck) >= StrikeForgiven {
		hl.Strikes = 0
	}
	if kind == "" {
		return
	}
	hl.Strikes++
	hl.Struck = now
	if until := now.Add(strikeRest(hl.Strikes, u)); until.After(hl.Rest) {
		hl.Rest = until
	}
}

// knownStrike reports whether kind is a strike this manager knows; an
// unknown one (a newer client's) counts as a slow-down.
func knownStrike(kind string) string {
	switch kind {
	case "", task.StrikeSlowDown, task.StrikeErrors, task.StrikeChallenge:
		return kind
	}
	return task.StrikeSlowDown
}

// jitter is the jitter source of strikes.
func jitter() float64 { return rand.Float64() }
