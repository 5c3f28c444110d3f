// Package emulate is test-only latency emulation: it maps peers and web host
// names onto the nodes of a measured latency matrix (internal/latency) and
// returns the round-trip time to add to each measurement a peer makes of
// another peer or of a web host, so coordinate-aware assignment can be
// tested and demonstrated on one machine where every real RTT is near zero.
//
// Caveats: never wire it into a real client; it only adds delay to
// measurements, it does not slow traffic. An entry the matrix does not know
// is replaced by the median of the measuring node's known RTTs.
package emulate

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Emulator holds the mapping to matrix nodes. It is safe for concurrent use.
type Emulator struct {
	m *latency.Matrix

	mu     sync.RWMutex    // guards the maps below
	peers  map[peer.ID]int // peer → matrix node
	hosts  map[string]int  // web host name → matrix node
	median map[int]float64 // node → median of its known RTTs (cache)
}

// New returns an Emulator over m with nothing assigned.
func New(m *latency.Matrix) *Emulator {
	return &Emulator{m: m, peers: map[peer.ID]int{}, hosts: map[string]int{}, median: map[int]float64{}}
}

// Len returns the number of matrix nodes.
func (e *Emulator) Len() int { return e.m.Len() }

func (e *Emulator) check(node int) error {
	if node < 0 || node >= e.m.Len() {
		return fmt.Errorf("emulate: node %d outside 0..%d", node, e.m.Len()-1)
	}
	return nil
}

// AssignPeer places peer id at matrix node.
func (e *Emulator) AssignPeer(id peer.ID, node int) error {
	if err := e.check(node); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.peers[id] = node
	return nil
}

// AssignHost places web host name (without port) at matrix node.
func (e *Emulator) AssignHost(name string, node int) error {
	if err := e.check(node); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hosts[name] = node
	return nil
}

// ListenHost places a web host at matrix node on ip, a loopback address:
// it listens there and closes every connection it accepts, all a round
// trip measurement needs. It returns the listener; closing it stops the
// host.
func (e *Emulator) ListenHost(ip string, node int) (net.Listener, error) {
	if err := e.AssignHost(ip, node); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("emulate: %w", err)
	}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	return l, nil
}

// between returns the emulated RTT between two nodes.
func (e *Emulator) between(i, j int) time.Duration {
	ms, ok := e.m.Sym(i, j)
	if !ok {
		ms = e.rowMedian(i)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func (e *Emulator) rowMedian(i int) float64 {
	e.mu.RLock()
	v, ok := e.median[i]
	e.mu.RUnlock()
	if ok {
		return v
	}
	var row []float64
	for j := range e.m.Len() {
		if ms, ok := e.m.Sym(i, j); ok && j != i {
			row = append(row, ms)
		}
	}
	if len(row) > 0 {
		slices.Sort(row)
		v = row[len(row)/2]
	}
	e.mu.Lock()
	e.median[i] = v
	e.mu.Unlock()
	return v
}

// PeerRTT returns the emulated RTT between peers a and b; ok is false when
// either is not assigned.
func (e *Emulator) PeerRTT(a, b peer.ID) (d time.Duration, ok bool) {
	e.mu.RLock()
	i, okA := e.peers[a]
	j, okB := e.peers[b]
	e.mu.RUnlock()
	if !okA || !okB {
		return 0, false
	}
	return e.between(i, j), true
}

// HostRTT returns the emulated RTT from peer p to web host name; ok is false
// when either is not assigned.
func (e *Emulator) HostRTT(p peer.ID, name string) (d time.Duration, ok bool) {
	e.mu.RLock()
	i, okA := e.peers[p]
	j, okB := e.hosts[name]
	e.mu.RUnlock()
	if !okA || !okB {
		return 0, false
	}
	return e.between(i, j), true
}

// View is one peer's view of the emulation: what to add to its measurements.
type View struct {
	e    *Emulator
	self peer.ID
}

// For returns peer self's view.
func (e *Emulator) For(self peer.ID) View { return View{e: e, self: self} }

// Peer returns the delay to add to a measured RTT to other (0 if unknown).
func (v View) Peer(other peer.ID) time.Duration {
	d, _ := v.e.PeerRTT(v.self, other)
	return d
}

// Host returns the delay to add to a measured RTT to web host name (0 if
// unknown); it has the signature of rtt.Config.Extra.
func (v View) Host(name string) time.Duration {
	d, _ := v.e.HostRTT(v.self, name)
	return d
}
