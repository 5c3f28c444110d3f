package recrawl

import (
	"fmt"
	"time"
)

// Defaults for Config's zero fields. Paper 000 lost its parameter values;
// these are chosen to fit its Tables 1 and 3 and are documented on Config.
const (
	DefaultGroups           = 5
	DefaultEncourage        = 0.1
	DefaultSmallestMultiple = 1.5
	DefaultBiggestMultiple  = 4
	DefaultTriggerShare     = 0.5
	DefaultTriggerUpdates   = 5
	DefaultShortenBelow     = 0.10
	DefaultLengthenAbove    = 0.25
)

// Counting selects which failures lower a group's success rate and ICR's
// capacity estimate (see the package documentation).
type Counting int

const (
	// CountLoadOnly counts only load-dependent failures (design.md §9): a
	// task lost without report is counted as a success.
	CountLoadOnly Counting = iota
	// CountAll is paper 000's literal reading: successRate =
	// hSucCount/hSubCount, capacity = hSucCount/Δt.
	CountAll
)

// String returns "load-only" or "all".
func (c Counting) String() string {
	switch c {
	case CountLoadOnly:
		return "load-only"
	case CountAll:
		return "all"
	}
	return fmt.Sprintf("Counting(%d)", int(c))
}

// Config tunes the strategies. The zero value gives the defaults below.
type Config struct {
	// Groups is K, the number of priority groups. 0 = 5.
	Groups int `json:"groups"`
	// Encourage is δ: when a group's success rate beats the previous
	// reassignment's, its new interval is multiplied by 1−δ. 0 = 0.1, a
	// step small enough that the alternating encourage (about every other
	// reassignment) cannot halve an interval in fewer than seven rounds.
	Encourage float64 `json:"encourage"`
	// SmallestMultiple is σ of checkPriorities: a slower group whose new
	// interval came out shorter than the faster group before it gets the
	// faster one's × σ. 0 = 1.5, the ratio between neighbouring groups that
	// IIR settles on in paper 000's Table 1 (326/216 … 1412/811 ≈ 1.5–1.7).
	SmallestMultiple float64 `json:"smallest_multiple"`
	// BiggestMultiple is μ: no group's interval exceeds the faster group
	// before it × μ. 0 = 4, twice the initial ratio of 2 between groups, so
	// ICR's fixed multiples (ratio 2, Table 1) are never clamped.
	BiggestMultiple float64 `json:"biggest_multiple"`
	// Counting selects the success-rate rule. 0 = CountLoadOnly.
	Counting Counting `json:"counting"`
	// Cap, when set, keeps every interval at least half its channel's
	// change interval (at most twice the change rate, paper 000 §4.3).
	// The Controller always applies it.
	Cap bool `json:"cap"`
	// TriggerShare and TriggerUpdates define when a reassignment is due:
	// when TriggerShare of the fastest group's channels have completed
	// more than TriggerUpdates updates since the last one. 0 = 0.5 and 5.
	TriggerShare   float64 `json:"trigger_share"`
	TriggerUpdates int     `json:"trigger_updates"`
	// MaxPeriod also makes a reassignment due when this long has passed
	// since the last one. 0 = never for IIR and ICR (as in the paper); the
	// Controller uses (TriggerUpdates+1) × its fastest interval. Set it in
	// live use: when the swarm is overloaded, the fastest group's tasks,
	// which have the shortest deadlines, can all expire in the queues, and
	// then the paper's trigger never fires and nothing adapts (shown by
	// TestClosedLoop).
	MaxPeriod time.Duration `json:"max_period"`
	// ShortenBelow and LengthenAbove are the Controller's thresholds on
	// load-dependent failures ÷ submissions. 0 = 0.10 and 0.25.
	ShortenBelow  float64 `json:"shorten_below"`
	LengthenAbove float64 `json:"lengthen_above"`
}

// withDefaults returns c with zero fields replaced by defaults, or an error
// for a value out of range.
func (c Config) withDefaults() (Config, error) {
	if c.Groups == 0 {
		c.Groups = DefaultGroups
	}
	if c.Encourage == 0 {
		c.Encourage = DefaultEncourage
	}
	if c.SmallestMultiple == 0 {
		c.SmallestMultiple = DefaultSmallestMultiple
	}
	if c.BiggestMultiple == 0 {
		c.BiggestMultiple = DefaultBiggestMultiple
	}
	if c.TriggerShare == 0 {
		c.TriggerShare = DefaultTriggerShare
	}
	if c.TriggerUpdates == 0 {
		c.TriggerUpdates = DefaultTriggerUpdates
	}
	if c.ShortenBelow == 0 {
		c.ShortenBelow = DefaultShortenBelow
	}
	if c.LengthenAbove == 0 {
		c.LengthenAbove = DefaultLengthenAbove
	}
	switch {
	case c.Groups < 1 || c.Groups > 64:
		return c, fmt.Errorf("%w: groups %d not in 1…64", ErrBadConfig, c.Groups)
	case c.Encourage < 0 || c.Encourage >= 1:
		return c, fmt.Errorf("%w: encourage rate %g not in [0, 1)", ErrBadConfig, c.Encourage)
	case c.SmallestMultiple < 1:
		return c, fmt.Errorf("%w: smallest multiple %g below 1", ErrBadConfig, c.SmallestMultiple)
	case c.BiggestMultiple < c.SmallestMultiple:
		return c, fmt.Errorf("%w: biggest multiple %g below smallest %g", ErrBadConfig, c.BiggestMultiple, c.SmallestMultiple)
	case c.TriggerShare < 0 || c.TriggerShare > 1:
		return c, fmt.Errorf("%w: trigger share %g not in [0, 1]", ErrBadConfig, c.TriggerShare)
	case c.TriggerUpdates < 0:
		return c, fmt.Errorf("%w: trigger updates %d negative", ErrBadConfig, c.TriggerUpdates)
	case c.MaxPeriod < 0:
		return c, fmt.Errorf("%w: max period %v negative", ErrBadConfig, c.MaxPeriod)
	case c.ShortenBelow < 0 || c.LengthenAbove < c.ShortenBelow || c.LengthenAbove > 1:
		return c, fmt.Errorf("%w: controller thresholds %g/%g not 0 ≤ shorten ≤ lengthen ≤ 1", ErrBadConfig, c.ShortenBelow, c.LengthenAbove)
	case c.Counting != CountLoadOnly && c.Counting != CountAll:
		return c, fmt.Errorf("%w: counting %v", ErrBadConfig, c.Counting)
	}
	return c, nil
}
