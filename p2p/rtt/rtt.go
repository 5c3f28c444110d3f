package rtt

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// Defaults used when Config fields are zero.
const (
	DefaultSamples = 3
	DefaultTimeout = 5 * time.Second
)

// ErrForbiddenAddress is wrapped when the host resolves to an address this
// peer must not dial (loopback, private, link-local, multicast ...).
var ErrForbiddenAddress = errors.New("address is not public")

// Config configures a Measurer.
type Config struct {
	// Samples is the number of TCP connects per measurement; 0 means
	// DefaultSamples.
	Samples int `json:"samples,omitempty"`
	// Timeout bounds a whole measurement; 0 means DefaultTimeout.
	Timeout time.Duration `json:"timeout,omitempty"`
	// AllowLoopback admits loopback addresses. Test-only.
	AllowLoopback bool `json:"-"`
	// AllowTestNets admits the documentation ranges (netguard). Test-only.
	AllowTestNets bool `json:"-"`
	// Extra, when set, returns a delay added to every measurement of host
	// (latency emulation, p2p/emulate). Test-only.
	Extra func(host string) time.Duration `json:"-"`
	// Sockets, when set, is the contributor's connection cap
	// (app/governor.Conns): each sample's connection holds a slot while
	// it is open, taken before its timing starts.
	Sockets Sockets `json:"-"`
}

// Sockets is a cap on open connections.
type Sockets interface {
	Acquire(ctx context.Context) error
	Release()
}

// Result is one measurement.
type Result struct {
	// Median is the median of the successful samples (plus Extra).
	Median time.Duration
	// Samples are the connect times measured, in order.
	Samples []time.Duration
}

// Measurer measures connect times. It is safe for concurrent use.
type Measurer struct {
	cfg    Config
	dialer *net.Dialer
	last   *lru.Cache[string, time.Duration] // hostPort → its last median
}

// remembered is how many hosts' last measurements a Measurer keeps
// (Last): a peer measures the hosts the manager locates near it, a few
// per task it could be given.
const remembered = 4096

// New returns a Measurer for cfg.
func New(cfg Config) *Measurer {
	if cfg.Samples <= 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	last, _ := lru.New[string, time.Duration](remembered) // fails only for a size ≤ 0
	return &Measurer{
		cfg:    cfg,
		dialer: &net.Dialer{Control: netguard.Control(netguard.Allowing(cfg.AllowLoopback, cfg.AllowTestNets), ErrForbiddenAddress)},
		last:   last,
	}
}

// Last returns the median of this peer's last measurement of hostPort,
// if it is among the remembered most recent ones: how far this peer is
// from a web host, by its own connects.
func (m *Measurer) Last(hostPort string) (time.Duration, bool) {
	return m.last.Get(hostPort)
}

// Measure connects to hostPort samples times (0 = the configured number),
// closing each connection at once, and returns the median connect time. It
// fails only when no sample succeeded; a forbidden address fails at once.
func (m *Measurer) Measure(ctx context.Context, hostPort string, samples int) (Result, error) {
	if samples <= 0 {
		samples = m.cfg.Samples
	}
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return Result{}, fmt.Errorf("measure %s: %w", hostPort, err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	var (
		res     Result
		lastErr error
	)
	for range samples {
		if s := m.cfg.Sockets; s != nil {
			if err := s.Acquire(ctx); err != nil {
				lastErr = err
				break
			}
		}
		start := time.Now()
		c, err := m.dialer.DialContext(ctx, "tcp", hostPort)
		d := time.Since(start)
		if err == nil {
			c.Close()
		}
		if m.cfg.Sockets != nil {
			m.cfg.Sockets.Release()
		}
		if err != nil {
			lastErr = err
			if errors.Is(err, ErrForbiddenAddress) || ctx.Err() != nil {
				break
			}
			continue
		}
		res.Samples = append(res.Samples, d)
	}
	if len(res.Samples) == 0 {
		return Result{}, fmt.Errorf("measure %s: %w", hostPort, lastErr)
	}
	res.Median = Median(res.Samples)
	if m.cfg.Extra != nil {
		res.Median += m.cfg.Extra(host)
	}
	m.last.Add(hostPort, res.Median)
	return res, nil
}

// Median returns the median of ds (the mean of the middle two for an even
// count), 0 for none. ds is not modified.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
