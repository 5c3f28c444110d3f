package ledger

import (
	"math"
	"time"
)

// HalfLife is the recent average's half-life (BOINC's RAC uses a week).
const HalfLife = 7 * 24 * time.Hour

// Average is an exponentially decaying sum of credits: each credit weighs
// 2^(−age/HalfLife). Sum is the weighted sum at time Ref. Its methods are
// pure; time is passed in.
type Average struct {
	Sum float64   `json:"sum"`
	Ref time.Time `json:"ref"`
}

// lambda is the decay rate per second.
var lambda = math.Ln2 / HalfLife.Seconds()

// Add counts credits granted at t. Adding in any order gives the same
// result.
func (a *Average) Add(t time.Time, credits float64) {
	switch {
	case a.Ref.IsZero():
		a.Sum, a.Ref = credits, t
	case t.After(a.Ref):
		a.Sum = a.Sum*math.Exp(-lambda*t.Sub(a.Ref).Seconds()) + credits
		a.Ref = t
	default:
		a.Sum += credits * math.Exp(-lambda*a.Ref.Sub(t).Seconds())
	}
}

// PerDay is the recent average credit per day at now: a client granted r
// credits every day for many weeks approaches r.
func (a Average) PerDay(now time.Time) float64 {
	if a.Ref.IsZero() {
		return 0
	}
	age := max(now.Sub(a.Ref).Seconds(), 0)
	return a.Sum * math.Exp(-lambda*age) * lambda * 86400
}
