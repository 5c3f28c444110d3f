package emulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/latency"
)

// Matrix names a Layout accepts besides a file path.
const (
	MatrixPlanetLab = "planetlab" // the embedded 490-node PlanetLab matrix (also "")
	MatrixSeattle   = "seattle"   // the embedded 99-node Seattle matrix
)

// maxLayoutBytes bounds a layout file, so a hostile one cannot make the
// decoder allocate without limit.
const maxLayoutBytes = 4 << 20

// Layout places loopback IPs (clients and web hosts) on latency-matrix
// nodes, so separate processes on one machine agree on the emulated round
// trip between any two of them: the fixture web delays its answers by
// RTT(requester, host) and a client adds RTT(self, other) to what it
// measures. The matrix is loaded once, by LoadLayout or on first use.
type Layout struct {
	// Matrix is "" or "planetlab" for the embedded PlanetLab matrix,
	// "seattle" for the embedded Seattle matrix, or the path of a
	// tab-separated matrix in milliseconds (relative to the layout file).
	Matrix string `json:"matrix,omitempty"`
	// Nodes maps an IP address in canonical form to its matrix node.
	Nodes map[string]int `json:"nodes"`

	dir  string // directory of the file the layout was loaded from
	once sync.Once
	em   *Emulator // the loaded matrix and its median cache
	err  error     // why the matrix could not be loaded
}

// LoadLayout reads and validates a layout file: unknown fields, trailing
// data, addresses that are not canonical IPs and nodes outside the matrix
// are errors.
func LoadLayout(path string) (*Layout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load latency layout: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLayoutBytes+1))
	if err != nil {
		return nil, fmt.Errorf("load latency layout %s: %w", path, err)
	}
	l, err := DecodeLayout(b)
	if err != nil {
		return nil, fmt.Errorf("load latency layout %s: %w", path, err)
	}
	l.dir = filepath.Dir(path)
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("load latency layout %s: %w", path, err)
	}
	return l, nil
}

// DecodeLayout parses a layout strictly and checks its addresses, without
// loading the matrix (Validate does that).
func DecodeLayout(b []byte) (*Layout, error) {
	if len(b) > maxLayoutBytes {
		return nil, fmt.Errorf("decode layout: larger than %d bytes", maxLayoutBytes)
	}
	var l Layout
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("decode layout: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decode layout: data after the layout")
	}
	if l.Nodes == nil {
		return nil, errors.New("decode layout: no nodes")
	}
	for ip, n := range l.Nodes {
		a, err := netip.ParseAddr(ip)
		if err != nil || a.String() != ip || a.Zone() != "" || a.Is4In6() {
			return nil, fmt.Errorf("decode layout: %q is not an IP address in canonical form", ip)
		}
		if n < 0 {
			return nil, fmt.Errorf("decode layout: %s on negative node %d", ip, n)
		}
	}
	return &l, nil
}

// Validate loads the matrix and checks that every node lies in it.
func (l *Layout) Validate() error {
	em, err := l.emulator()
	if err != nil {
		return err
	}
	for ip, n := range l.Nodes {
		if err := em.check(n); err != nil {
			return fmt.Errorf("layout: %s: %w", ip, err)
		}
	}
	return nil
}

// Len returns the number of nodes of the layout's matrix (0 if it cannot be
// loaded).
func (l *Layout) Len() int {
	em, err := l.emulator()
	if err != nil {
		return 0
	}
	return em.Len()
}

// emulator loads the matrix once.
func (l *Layout) emulator() (*Emulator, error) {
	l.once.Do(func() {
		m, err := loadMatrix(l.Matrix, l.dir)
		if err != nil {
			l.err = err
			return
		}
		l.em = New(m)
	})
	return l.em, l.err
}

func loadMatrix(name, dir string) (*latency.Matrix, error) {
	switch name {
	case "", MatrixPlanetLab:
		return latency.PlanetLab(), nil
	case MatrixSeattle:
		return latency.Seattle(), nil
	}
	path := name
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load latency matrix: %w", err)
	}
	defer f.Close()
	m, err := latency.Parse(f, 1)
	if err != nil {
		return nil, fmt.Errorf("load latency matrix %s: %w", path, err)
	}
	return m, nil
}

// RTT returns the emulated round trip between two placed IPs; ok is false
// when either is not placed or the matrix cannot be loaded. An unknown
// matrix entry is replaced by the median of the first node's known RTTs;
// an IP to itself is 0.
func (l *Layout) RTT(ipA, ipB string) (time.Duration, bool) {
	i, okA := l.Nodes[ipA]
	j, okB := l.Nodes[ipB]
	if !okA || !okB {
		return 0, false
	}
	em, err := l.emulator()
	if err != nil || em.check(i) != nil || em.check(j) != nil {
		return 0, false
	}
	if ipA == ipB {
		return 0, true
	}
	return em.between(i, j), true
}

// Delay returns RTT(ipA, ipB), or 0 when it is unknown; it has the shape
// of fixture.Options.Delay (requester, host).
func (l *Layout) Delay(ipA, ipB string) time.Duration {
	d, _ := l.RTT(ipA, ipB)
	return d
}

func mustJSON(l *Layout) []byte {
	b, err := json.Marshal(l)
	if err != nil {
		panic(err) // a map of strings to ints always marshals
	}
	return b
}

// Save writes the layout to path atomically, readable only by its owner.
func (l *Layout) Save(path string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("save latency layout: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save latency layout: %w", err)
	}
	return nil
}
