package host

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

var quiet = slog.New(slog.DiscardHandler)

var loopback = []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"}

func newTestHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	if cfg.ListenAddrs == nil {
		cfg.ListenAddrs = loopback
	}
	cfg.Logger = quiet
	h, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// only keeps the addresses that contain the protocol code proto.
func only(addrs []ma.Multiaddr, proto int) []ma.Multiaddr {
	var out []ma.Multiaddr
	for _, a := range addrs {
		if _, err := a.ValueForProtocol(proto); err == nil {
			out = append(out, a)
		}
	}
	return out
}

const echoProto = "/hivecrawl/test/echo/1.0.0"

func TestTwoHostsConnect(t *testing.T) {
	tests := []struct {
		name  string
		proto int
	}{
		{"tcp", ma.P_TCP},
		{"quic", ma.P_QUIC_V1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestHost(t, Config{Public: true})
			b := newTestHost(t, Config{Public: true})
			a.SetStreamHandler(echoProto, func(s network.Stream) {
				defer s.Close()
				io.Copy(s, s)
			})
			addrs := only(a.Addrs(), tt.proto)
			if len(addrs) == 0 {
				t.Fatalf("host a has no %s address among %v", tt.name, a.Addrs())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := b.Connect(ctx, peer.AddrInfo{ID: a.ID(), Addrs: addrs}); err != nil {
				t.Fatalf("connect over %s: %v", tt.name, err)
			}
			s, err := b.NewStream(ctx, a.ID(), echoProto)
			if err != nil {
				t.Fatalf("open stream: %v", err)
			}
			msg := []byte("hello, hive")
			if _, err := s.Write(msg); err != nil {
				t.Fatalf("write: %v", err)
			}
			s.CloseWrite()
			got, err := io.ReadAll(s)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if string(got) != string(msg) {
				t.Fatalf("echo = %q, want %q", got, msg)
			}
			conns := b.Network().ConnsToPeer(a.ID())
			if len(conns) == 0 {
				t.Fatal("no connection to a")
			}
			if _, err := conns[0].RemoteMultiaddr().ValueForProtocol(tt.proto); err != nil {
				t.Errorf("connection uses %v, want %s", conns[0].RemoteMultiaddr(), tt.name)
			}
			// The bandwidth counter saw at least the echoed bytes both ways.
			// Its meters are swept about once a second, so poll.
			waitFor(ctx, t, func() bool {
				tot := b.Bandwidth.GetBandwidthTotals()
				return tot.TotalOut >= int64(len(msg)) && tot.TotalIn >= int64(len(msg))
			})
			tot := b.Bandwidth.GetBandwidthTotals()
			if tot.TotalOut < int64(len(msg)) || tot.TotalIn < int64(len(msg)) {
				t.Errorf("bandwidth totals in=%d out=%d, want at least %d each", tot.TotalIn, tot.TotalOut, len(msg))
			}
		})
	}
}

func TestKeyPersistsAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "peer.key")
	h1, err := New(context.Background(), Config{ListenAddrs: loopback[:1], KeyFile: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	id1 := h1.ID()
	if err := h1.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("key file not written: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %v, want 0600", fi.Mode().Perm())
	}
	h2 := newTestHost(t, Config{ListenAddrs: loopback[:1], KeyFile: path})
	if h2.ID() != id1 {
		t.Fatalf("peer ID changed across restart: %s then %s", id1, h2.ID())
	}
	h3 := newTestHost(t, Config{ListenAddrs: loopback[:1]})
	if h3.ID() == id1 {
		t.Fatal("ephemeral host reused the stored identity")
	}
}

func TestLoadOrCreateKeyRefusesGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peer.key")
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadOrCreateKey(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("LoadOrCreateKey(garbage) = %v, want an error naming the file", err)
	}
}

func TestDeriveLimits(t *testing.T) {
	tests := []struct {
		name     string
		maxConns int
		want     Limits
	}{
		{"default", 0, Limits{MaxConns: 128, Memory: 256 << 20, Streams: 1024, Transient: 32, LowWater: 64, HighWater: 96}},
		{"small cap keeps memory floor", 8, Limits{MaxConns: 8, Memory: 64 << 20, Streams: 64, Transient: 4, LowWater: 4, HighWater: 6}},
		{"tiny cap", 1, Limits{MaxConns: 1, Memory: 64 << 20, Streams: 8, Transient: 4, LowWater: 1, HighWater: 2}},
		{"large cap", 1000, Limits{MaxConns: 1000, Memory: 2000 << 20, Streams: 8000, Transient: 250, LowWater: 500, HighWater: 750}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DeriveLimits(tt.maxConns)
			if got != tt.want {
				t.Fatalf("DeriveLimits(%d) = %+v, want %+v", tt.maxConns, got, tt.want)
			}
			c := got.concrete().ToPartialLimitConfig()
			if int(c.System.Conns) != got.MaxConns || int64(c.System.Memory) != got.Memory {
				t.Errorf("system scope conns=%v memory=%v, want %d and %d", c.System.Conns, c.System.Memory, got.MaxConns, got.Memory)
			}
		})
	}
}

// TestConnectionCapEnforced checks that the resource manager refuses
// connections beyond the contributor's cap.
func TestConnectionCapEnforced(t *testing.T) {
	const capConns = 2
	a := newTestHost(t, Config{Public: true, MaxConns: capConns, ListenAddrs: loopback[:1]})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	accepted := 0
	for i := 0; i < capConns+3; i++ {
		b := newTestHost(t, Config{ListenAddrs: loopback[:1]})
		if err := b.Connect(ctx, a.AddrInfo()); err == nil {
			accepted++
		}
	}
	// Give a's side time to settle, then count its open connections.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && len(a.Network().Conns()) > capConns {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(a.Network().Conns()); n > capConns {
		t.Fatalf("host with cap %d holds %d connections", capConns, n)
	}
	if accepted == 0 {
		t.Fatal("no connection was accepted at all")
	}
}

// TestConnectionCapLive: a cap changed while the host runs is in force
// for the next connection, lowered and raised again. Before, the cap was
// read once at start, though every other limit applies within a second.
func TestConnectionCapLive(t *testing.T) {
	a := newTestHost(t, Config{Public: true, MaxConns: 16, ListenAddrs: loopback[:1]})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	connect := func(n int) (accepted int) {
		t.Helper()
		for range n {
			b := newTestHost(t, Config{ListenAddrs: loopback[:1]})
			if err := b.Connect(ctx, a.AddrInfo()); err == nil {
				accepted++
			}
		}
		return accepted
	}
	settle := func(most int) int {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && len(a.Network().Conns()) > most {
			time.Sleep(50 * time.Millisecond)
		}
		return len(a.Network().Conns())
	}
	if got := connect(2); got != 2 {
		t.Fatalf("%d of 2 connections accepted under a cap of 16", got)
	}
	a.SetMaxConns(2)
	if a.MaxConns() != 2 {
		t.Fatalf("cap in force %d, want 2", a.MaxConns())
	}
	connect(3)
	if n := settle(2); n > 2 {
		t.Fatalf("%d connections open after the cap was lowered to 2", n)
	}
	a.SetMaxConns(16)
	if got := connect(3); got != 3 {
		t.Fatalf("%d of 3 connections accepted after the cap was raised to 16", got)
	}
}

func TestProtectNeighbour(t *testing.T) {
	h := newTestHost(t, Config{ListenAddrs: loopback[:1]})
	other := newTestHost(t, Config{ListenAddrs: loopback[:1]})
	if h.IsNeighbourProtected(other.ID()) {
		t.Fatal("protected before ProtectNeighbour")
	}
	h.ProtectNeighbour(other.ID())
	if !h.IsNeighbourProtected(other.ID()) {
		t.Fatal("not protected after ProtectNeighbour")
	}
	if still := h.UnprotectNeighbour(other.ID()); still {
		t.Error("UnprotectNeighbour reports another protection tag")
	}
	if h.IsNeighbourProtected(other.ID()) {
		t.Fatal("still protected after UnprotectNeighbour")
	}
}

func TestTestNetsPublic(t *testing.T) {
	lab, home := ma.StringCast("/ip4/198.51.100.10/tcp/4901"), ma.StringCast("/ip4/198.18.1.2/tcp/4901")
	if manet.IsPublicAddr(lab) {
		t.Fatal("198.51.100.10 is public before the switch")
	}
	saved := manet.Unroutable4
	t.Cleanup(func() { manet.Unroutable4 = saved })
	TestNetsPublic()
	if !manet.IsPublicAddr(lab) {
		t.Error("198.51.100.10 is not public after the switch")
	}
	if manet.IsPublicAddr(home) {
		t.Error("198.18.1.2, a home LAN in the lab, became public")
	}
}

// TestClosePassing: a connection dialled for one purpose stays open
// while it carries a stream, closes once idle, and closes whatever it
// carries once marked longer than the stuck bound; a peer in use again
// (keep) is unmarked and left open.
func TestClosePassing(t *testing.T) {
	h := newTestHost(t, Config{ListenAddrs: loopback[:1]})
	other := newTestHost(t, Config{ListenAddrs: loopback[:1]})
	other.SetStreamHandler(echoProto, func(s network.Stream) { io.Copy(s, s); s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func() network.Stream {
		t.Helper()
		if err := h.Connect(ctx, other.AddrInfo()); err != nil {
			t.Fatal(err)
		}
		s, err := h.NewStream(ctx, other.ID(), echoProto)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	connected := func() bool { return h.Network().Connectedness(other.ID()) == network.Connected }
	never := func(peer.ID) bool { return false }

	s := dial()
	h.Passing(other.ID())
	if left := h.ClosePassing(time.Hour, never); left != 1 || !connected() {
		t.Fatalf("a connection carrying a stream: %d marked, connected %v; want it kept", left, connected())
	}
	s.Close()
	if err := pollUntil(ctx, func() bool {
		return len(h.Network().ConnsToPeer(other.ID())) > 0 && len(h.Network().ConnsToPeer(other.ID())[0].GetStreams()) == 0
	}); err != nil {
		t.Fatal(err)
	}
	if left := h.ClosePassing(time.Hour, never); left != 0 || connected() {
		t.Fatalf("an idle connection: %d marked, connected %v; want it closed", left, connected())
	}

	s = dial()
	defer s.Close()
	h.Passing(other.ID())
	if left := h.ClosePassing(0, never); left != 0 || connected() {
		t.Fatalf("a stuck stream: %d marked, connected %v; want it closed", left, connected())
	}

	dial().Close()
	h.Passing(other.ID())
	if left := h.ClosePassing(0, func(peer.ID) bool { return true }); left != 0 || !connected() {
		t.Fatalf("a peer in use again: %d marked, connected %v; want it unmarked and open", left, connected())
	}
}

// pollUntil polls ok every 10 ms until it holds or ctx ends.
func pollUntil(ctx context.Context, ok func() bool) error {
	for !ok() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
