package strategies

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// Config is one simulation's set-up. The zero value is not valid; start
// from REC or RUC.
type Config struct {
	// Name labels the case ("REC", "RUC").
	Name string
	// Channels and Crawlers are the swarm's sizes.
	Channels, Crawlers int
	// Steps is the simulated length in one-minute steps.
	Steps int
	// GroupShares are the shares of channels per priority group, fastest
	// first; GroupIntervals the groups' change intervals in steps.
	GroupShares    []float64
	GroupIntervals []int
	// Threads and QueueLen are each crawler's task threads and queue
	// length; TTL is LBI's forwarding limit.
	Threads, QueueLen, TTL int
	// Lifetime, Rejoin: mean and deviation (steps) of a crawler's time
	// online and offline. GracefulShare leave with notice.
	LifetimeMean, LifetimeSD float64
	RejoinMean, RejoinSD     float64
	GracefulShare            float64
	// MeanPages is the mean page count per channel (lognormal, σ =
	// PagesSigma); PageBytes the size of a page; PoliteSeconds the wait per
	// page.
	MeanPages     float64
	PagesSigma    float64
	PageBytes     float64
	PoliteSeconds float64
	// Sample is the width in steps of the windows the time series average.
	Sample int
	// Counting is the success-rate rule given to the strategies.
	Counting recrawl.Counting
}

// Start is the wall-clock time step 0 maps to; any fixed time would do.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Step is the length of one simulated step.
const Step = time.Minute

func base() Config {
	return Config{
		Channels:       16000,
		Steps:          90000,
		GroupShares:    []float64{0.034, 0.247, 0.447, 0.239, 0.034},
		GroupIntervals: []int{60, 120, 240, 480, 960},
		Threads:        5,
		QueueLen:       5,
		TTL:            3,
		LifetimeMean:   1000,
		LifetimeSD:     200,
		RejoinMean:     600,
		RejoinSD:       200,
		GracefulShare:  1.0 / 3,
		MeanPages:      15187511.0 / 1738,
		PagesSigma:     1,
		PageBytes:      10 * 1024,
		PoliteSeconds:  0.2,
		Sample:         500,
	}
}

// REC is paper 000's case where the swarm cannot keep up: 1,400 crawlers.
func REC() Config { c := base(); c.Name = "REC"; c.Crawlers = 1400; return c }

// RUC is paper 000's case where it can: 2,800 crawlers.
func RUC() Config { c := base(); c.Name = "RUC"; c.Crawlers = 2800; return c }

// Shrink scales the run down by f (channels, crawlers and steps), for
// tests.
func (c Config) Shrink(f float64) Config {
	c.Channels = max(50, int(float64(c.Channels)*f))
	c.Crawlers = max(10, int(float64(c.Crawlers)*f))
	c.Steps = max(2000, int(float64(c.Steps)*f))
	c.Sample = max(50, c.Steps/180)
	return c
}

func (c Config) validate() error {
	switch {
	case c.Channels < 1 || c.Crawlers < 2 || c.Steps < 1:
		return fmt.Errorf("recrawl sim: need channels, 2 crawlers and steps, got %d, %d, %d", c.Channels, c.Crawlers, c.Steps)
	case len(c.GroupShares) == 0 || len(c.GroupShares) != len(c.GroupIntervals):
		return fmt.Errorf("recrawl sim: %d group shares for %d intervals", len(c.GroupShares), len(c.GroupIntervals))
	case c.Threads < 1 || c.QueueLen < 0 || c.Sample < 1:
		return fmt.Errorf("recrawl sim: threads %d, queue %d, sample %d", c.Threads, c.QueueLen, c.Sample)
	}
	return nil
}
