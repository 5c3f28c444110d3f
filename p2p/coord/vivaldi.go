package coord

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/hashicorp/serf/coordinate"
)

// DefaultDim is the coordinate dimension unless configured: the CAN's d.
const DefaultDim = 3

// msPerSecond converts serf's seconds to this package's milliseconds.
const msPerSecond = 1000

// Client keeps one peer's Vivaldi coordinate and updates it from the RTTs
// the peer measures to others (on the overlay's heartbeats). It wraps serf's
// coordinate.Client with serf's default tuning (Vivaldi CE = CC = 0.25, a
// height, an adjustment window of 20 samples, a latency filter keeping the
// median of the last 3 samples per node, gravity ρ = 150 s) and only the
// dimension changed. Safe for concurrent use, as serf's client is.
type Client struct {
	c   *coordinate.Client
	dim int
	// samples counts the observations accepted.
	samples atomic.Int64
}

// NewClient returns a client with a coordinate of dimension dim (≤ 0 means
// DefaultDim) started at a random offset of up to 1 ms drawn from r.
func NewClient(dim int, r *rand.Rand) (*Client, error) {
	if dim <= 0 {
		dim = DefaultDim
	}
	cfg := coordinate.DefaultConfig()
	cfg.Dimensionality = uint(dim)
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
	return &Client{c: c, dim: dim}, nil
}

// Coord returns the client's current coordinate.
func (c *Client) Coord() Coord { return fromSerf(c.c.GetCoordinate()) }

// Observe feeds one RTT measured to node, whose announced coordinate is
// other, and returns the updated coordinate. RTTs must lie in (0, 10 s].
func (c *Client) Observe(node string, other Coord, rtt time.Duration) (Coord, error) {
	if err := other.Validate(c.dim); err != nil {
		return Coord{}, fmt.Errorf("observe %s: %w", node, err)
	}
	if rtt <= 0 {
		return Coord{}, fmt.Errorf("observe %s: round trip time %v is not positive", node, rtt)
	}
	upd, err := c.c.Update(node, toSerf(other), rtt)
	if err != nil {
		return Coord{}, fmt.Errorf("observe %s: %w", node, err)
	}
	c.samples.Add(1)
	return fromSerf(upd), nil
}

// Samples returns how many observations the client has accepted. Vivaldi's
// error falls below 0.5 within a few samples per neighbour, while the
// coordinates of a fresh set of peers still spread out for some rounds
// after; a caller that acts once on a coordinate can wait for more.
func (c *Client) Samples() int64 { return c.samples.Load() }

// Forget drops the latency samples kept for node, for when it leaves.
func (c *Client) Forget(node string) { c.c.ForgetNode(node) }

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
