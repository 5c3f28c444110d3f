package rtt

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/testkit/testport"
	"github.com/libp2p/go-libp2p/core/peer"
)

func TestMedian(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		in   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{5 * ms}, 5 * ms},
		{"odd unsorted", []time.Duration{9 * ms, 1 * ms, 5 * ms}, 5 * ms},
		{"even", []time.Duration{4 * ms, 1 * ms, 2 * ms, 8 * ms}, 3 * ms},
		{"outlier ignored", []time.Duration{1 * ms, 2 * ms, 900 * ms}, 2 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]time.Duration(nil), tt.in...)
			if got := Median(tt.in); got != tt.want {
				t.Fatalf("Median(%v) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range in {
				if in[i] != tt.in[i] {
					t.Fatal("Median modified its input")
				}
			}
		})
	}
}

// listen returns a loopback TCP listener that counts accepted connections.
func listen(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ch := make(chan struct{}, 100)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			ch <- struct{}{}
		}
	}()
	return l.Addr().String(), ch
}

// closedPort returns an address nothing listens on. A port 0 listener
// closed again would leave a port the system may hand to another
// process's listener at once (testport).
func closedPort(t *testing.T) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(testport.Fixed(t)))
}

func TestMeasure(t *testing.T) {
	open, accepted := listen(t)
	tests := []struct {
		name        string
		cfg         Config
		target      string
		samples     int
		wantErr     error
		wantSamples int
		wantAtLeast time.Duration
	}{
		{"loopback allowed", Config{AllowLoopback: true}, open, 0, nil, DefaultSamples, 0},
		{"five samples", Config{AllowLoopback: true}, open, 5, nil, 5, 0},
		{"emulated latency added", Config{AllowLoopback: true, Extra: func(h string) time.Duration {
			if h == "127.0.0.1" {
				return 80 * time.Millisecond
			}
			return 0
		}}, open, 1, nil, 1, 80 * time.Millisecond},
		{"loopback refused", Config{}, open, 0, ErrForbiddenAddress, 0, 0},
		{"private refused", Config{AllowLoopback: true}, "10.1.2.3:80", 0, ErrForbiddenAddress, 0, 0},
		{"link-local refused", Config{AllowLoopback: true}, "[fe80::1]:80", 0, ErrForbiddenAddress, 0, 0},
		{"closed port", Config{AllowLoopback: true}, closedPort(t), 0, syscallRefused, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := New(tt.cfg).Measure(context.Background(), tt.target, tt.samples)
			if tt.wantErr != nil {
				if tt.wantErr == syscallRefused {
					if err == nil {
						t.Fatal("measured a closed port")
					}
					return
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Measure = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Samples) != tt.wantSamples {
				t.Fatalf("%d samples, want %d", len(res.Samples), tt.wantSamples)
			}
			if res.Median <= 0 || res.Median < tt.wantAtLeast {
				t.Fatalf("median %v, want > 0 and >= %v", res.Median, tt.wantAtLeast)
			}
			for range tt.wantSamples {
				select {
				case <-accepted:
				case <-time.After(5 * time.Second):
					t.Fatal("listener saw fewer connections than samples")
				}
			}
		})
	}
}

// TestLastRemembersMeasurements: a host measured is remembered with its
// last median, emulated delay included; a host never measured, or whose
// measurement failed, is not.
func TestLastRemembersMeasurements(t *testing.T) {
	open, _ := listen(t)
	m := New(Config{AllowLoopback: true, Extra: func(string) time.Duration { return 80 * time.Millisecond }})
	if _, ok := m.Last(open); ok {
		t.Fatal("a host never measured is remembered")
	}
	res, err := m.Measure(context.Background(), open, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := m.Last(open); !ok || d != res.Median || d < 80*time.Millisecond {
		t.Fatalf("Last = %v, %v; want the measurement's median %v", d, ok, res.Median)
	}
	closed := closedPort(t)
	if _, err := m.Measure(context.Background(), closed, 1); err == nil {
		t.Fatal("measured a closed port")
	}
	if _, ok := m.Last(closed); ok {
		t.Fatal("a failed measurement is remembered")
	}
}

// syscallRefused marks a case that must fail for a reason the OS decides.
var syscallRefused = errors.New("connection refused")

func TestAskOverTheOverlay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	cfg := host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, Logger: quiet}
	a, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	self := coord.Coord{Vec: []float64{0.01, 0.02, 0.03}}
	a.SetStreamHandler(wire.MeasureProtocol, Handler(New(Config{AllowLoopback: true}), func() coord.Coord { return self }, nil, quiet))
	if err := b.Connect(ctx, a.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	open, _ := listen(t)
	resp, err := Ask(ctx, b, a.ID(), open, 3)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if resp.Samples != 3 || resp.MedianMicros == 0 || resp.Coord == nil || resp.Coord.Vec[2] != 0.03 {
		t.Fatalf("response = %v", resp)
	}
	// A peer measures only for the peers it takes requests from (a
	// volunteer: its manager); anyone else's stream is reset unread, and
	// the host is not contacted.
	watched, probed := listen(t)
	a.SetStreamHandler(wire.MeasureProtocol, Handler(New(Config{AllowLoopback: true}), nil, func(p peer.ID) bool { return p != b.ID() }, quiet))
	if _, err := Ask(ctx, b, a.ID(), watched, 3); err == nil {
		t.Fatal("Ask from a peer not allowed answered")
	}
	select {
	case <-probed:
		t.Fatal("the host was contacted for a peer not allowed")
	case <-time.After(100 * time.Millisecond):
	}
	// A peer refuses to probe its own network for others.
	a.SetStreamHandler(wire.MeasureProtocol, Handler(New(Config{}), nil, nil, quiet))
	_, err = Ask(ctx, b, a.ID(), open, 3)
	if err == nil || !strings.Contains(err.Error(), "not public") {
		t.Fatalf("Ask(loopback, no allow) = %v, want a refusal", err)
	}
}

// countSlots is a Sockets of n slots that counts what it handed out.
type countSlots struct {
	free             chan struct{}
	taken, given     atomic.Int32
	heldAtOnce, most atomic.Int32
}

func newCountSlots(n int) *countSlots {
	s := &countSlots{free: make(chan struct{}, n)}
	for range n {
		s.free <- struct{}{}
	}
	return s
}

func (s *countSlots) Acquire(ctx context.Context) error {
	select {
	case <-s.free:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.taken.Add(1)
	if h := s.heldAtOnce.Add(1); h > s.most.Load() {
		s.most.Store(h)
	}
	return nil
}

func (s *countSlots) Release() {
	s.heldAtOnce.Add(-1)
	s.given.Add(1)
	s.free <- struct{}{}
}

// TestMeasureUnderConnectionCap: each sample's connection holds a slot of
// the contributor's cap while it is open, and gives it back; with every
// slot taken by crawls, the measurement waits for one and fails at its
// timeout rather than open a connection over the cap.
func TestMeasureUnderConnectionCap(t *testing.T) {
	open, _ := listen(t)
	s := newCountSlots(1)
	res, err := New(Config{AllowLoopback: true, Sockets: s}).Measure(context.Background(), open, 4)
	if err != nil || len(res.Samples) != 4 {
		t.Fatalf("Measure = %d samples, %v; want 4", len(res.Samples), err)
	}
	if s.taken.Load() != 4 || s.given.Load() != 4 || s.most.Load() != 1 {
		t.Fatalf("slots taken %d, given back %d, most held at once %d; want 4, 4, 1", s.taken.Load(), s.given.Load(), s.most.Load())
	}
	if err := s.Acquire(context.Background()); err != nil { // a crawl holds the only slot
		t.Fatal(err)
	}
	_, err = New(Config{AllowLoopback: true, Sockets: s, Timeout: 100 * time.Millisecond}).Measure(context.Background(), open, 2)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Measure with every slot taken = %v, want the timeout", err)
	}
}
