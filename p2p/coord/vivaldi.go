package coord

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/serf/coordinate"
)

// DefaultDim is the coordinate dimension unless configured: the CAN's d.
const DefaultDim = 3

// msPerSecond converts serf's seconds to this package's milliseconds.
const msPerSecond = 1000

// CalmAfter is how many samples a coordinate rests on before its Vivaldi
// step shrinks from serf's VivaldiCC of 0.25 to CalmCC. Vivaldi never comes
// to rest on real latencies, which no Euclidean space fits exactly: with
// the full step, a settled coordinate keeps wandering, tens of
// milliseconds over some minutes, however long it has run, and whatever
// is placed by it (the peer's point in the CAN space) wanders along. The
// smaller step, from the peer's first move on (p2p/node waits for as many
// samples), cuts the wander by about 45 % at the same accuracy
// (TestCalmCoordinatesWanderLess; about threefold once the coordinates
// have converged, since part of what remains is their slower
// convergence). A real change of the peer's network raises its error, and
// the error weights every step.
const CalmAfter = 100

// CalmCC is Vivaldi's step gain after CalmAfter samples.
const CalmCC = 0.05

// Client keeps one peer's Vivaldi coordinate and updates it from the RTTs
// the peer measures to others (on the overlay's heartbeats). It wraps serf's
// coordinate.Client with serf's default tuning (Vivaldi CE = CC = 0.25, a
// height, an adjustment window of 20 samples, a latency filter keeping the
// median of the last 3 samples per node, gravity ρ = 150 s), the dimension
// changed and, after CalmAfter samples, CC lowered to CalmCC. Safe for
// concurrent use.
type Client struct {
	mu  sync.Mutex // guards c's replacement when the step calms
	c   *coordinate.Client
	dim int
	// calmAfter is CalmAfter; 0 keeps the full step (tests compare).
	calmAfter int64
	// samples counts the observations accepted.
	samples atomic.Int64
}

// NewClient returns a client with a coordinate of dimension dim (≤ 0 means
// DefaultDim) started at a random offset of up to 1 ms drawn from r.
func NewClient(dim int, r *rand.Rand) (*Client, error) {
	if dim <= 0 {
		dim = DefaultDim
	}
	cfg := config(dim, coordinate.DefaultConfig().VivaldiCC)
	c, err := coordinate.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("new vivaldi client: %w", err)
	}
	start := coordinate.NewCoordinate(cfg)
	for i := range start.Vec {
		start.Vec[i] = (r.Float64() - 0.5) / msPerSecond
	}
	if err := c.SetCoordinate(start); err != nil {
		return nil, fmt.Errorf("new vivaldi client: %w", err)
	}
	return &Client{c: c, dim: dim, calmAfter: CalmAfter}, nil
}

// config returns serf's configuration for a client of dimension dim with
// step gain cc.
func config(dim int, cc float64) *coordinate.Config {
	cfg := coordinate.DefaultConfig()
	cfg.Dimensionality = uint(dim)
	cfg.VivaldiCC = cc
	return cfg
}

// Coord returns the client's current coordinate.
func (c *Client) Coord() Coord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fromSerf(c.c.GetCoordinate())
}

// Observe feeds one RTT measured to node, whose announced coordinate is
// other, and returns the updated coordinate. RTTs must lie in (0, 10 s].
func (c *Client) Observe(node string, other Coord, rtt time.Duration) (Coord, error) {
	if err := other.Validate(c.dim); err != nil {
		return Coord{}, fmt.Errorf("observe %s: %w", node, err)
	}
	if rtt <= 0 {
		return Coord{}, fmt.Errorf("observe %s: round trip time %v is not positive", node, rtt)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	upd, err := c.c.Update(node, toSerf(other), rtt)
	if err != nil {
		return Coord{}, fmt.Errorf("observe %s: %w", node, err)
	}
	if n := c.samples.Add(1); n == c.calmAfter {
		c.calm(upd)
	}
	return fromSerf(upd), nil
}

// calm carries coordinate at over to a serf client with the step gain
// CalmCC. The new client starts without the old one's latency filter and
// adjustment samples, which refill within a few heartbeat rounds.
func (c *Client) calm(at *coordinate.Coordinate) {
	nc, err := coordinate.NewClient(config(c.dim, CalmCC))
	if err != nil {
		return // the configuration is fixed and valid; keep the full step
	}
	if err := nc.SetCoordinate(at); err != nil {
		return
	}
	c.c = nc
}

// Samples returns how many observations the client has accepted. Vivaldi's
// error falls below 0.5 within a few samples per neighbour, while the
// coordinates of a fresh set of peers still spread out for some rounds
// after; a caller that acts once on a coordinate can wait for more.
func (c *Client) Samples() int64 { return c.samples.Load() }

// Forget drops the latency samples kept for node, for when it leaves.
func (c *Client) Forget(node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.ForgetNode(node)
}

func fromSerf(s *coordinate.Coordinate) Coord {
	v := make([]float64, len(s.Vec))
	for i, x := range s.Vec {
		v[i] = x * msPerSecond
	}
	return Coord{Vec: v, Height: s.Height * msPerSecond, Adjustment: s.Adjustment * msPerSecond, Error: s.Error}
}

func toSerf(c Coord) *coordinate.Coordinate {
	v := make([]float64, len(c.Vec))
	for i, x := range c.Vec {
		v[i] = x / msPerSecond
	}
	return &coordinate.Coordinate{Vec: v, Height: c.Height / msPerSecond, Adjustment: c.Adjustment / msPerSecond, Error: c.Error}
}
