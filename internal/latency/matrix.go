package latency

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

var (
	//go:embed data/planetlab-490.tsv
	planetLabTSV []byte
	//go:embed data/seattle-99.tsv
	seattleTSV []byte
)

// MaxNodes bounds the size of a parsed matrix, so a hostile file cannot make
// the parser allocate without limit.
const MaxNodes = 2048

// Matrix is a table of round-trip times in milliseconds between nodes
// 0…Len()-1. A replicated matrix computes its entries from its base matrix
// (see Replicate). Matrices are immutable and safe for concurrent reads.
type Matrix struct {
	n   int
	rtt []float64 // n×n, NaN = unknown; nil for a replicated matrix

	base   *Matrix
	origin []int32   // replica → base node
	offset []float64 // replica → distance from its origin in ms (0 for the origin itself)
}

// PlanetLab returns the 490-node PlanetLab matrix (milliseconds).
func PlanetLab() *Matrix { return mustParse(planetLabTSV, 1, "planetlab-490.tsv") }

// Seattle returns the 99-node Seattle matrix, converted from seconds to
// milliseconds.
func Seattle() *Matrix { return mustParse(seattleTSV, 1000, "seattle-99.tsv") }

func mustParse(b []byte, scale float64, name string) *Matrix {
	m, err := Parse(bytes.NewReader(b), scale)
	if err != nil {
		panic(fmt.Sprintf("latency: embedded %s: %v", name, err))
	}
	return m
}

// Parse reads a square tab- (or space-) separated matrix, one row per line,
// multiplying every entry by scale to get milliseconds (1 for a file in
// milliseconds, 1000 for one in seconds). Blank lines are skipped; rows
// shorter than the matrix leave their missing entries unknown; a row longer
// than the number of rows is an error.
func Parse(r io.Reader, scale float64) (*Matrix, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("parse latency matrix: scale %v is not positive", scale)
	}
	var rows [][]float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*MaxNodes*2)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(rows) >= MaxNodes {
			return nil, fmt.Errorf("parse latency matrix: more than %d rows", MaxNodes)
		}
		fields := bytes.Fields(line)
		row := make([]float64, len(fields))
		for j, f := range fields {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil {
				return nil, fmt.Errorf("parse latency matrix: row %d column %d: %w", len(rows)+1, j+1, err)
			}
			row[j] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parse latency matrix: %w", err)
	}
	n := len(rows)
	if n == 0 {
		return nil, fmt.Errorf("parse latency matrix: no rows")
	}
	m := &Matrix{n: n, rtt: make([]float64, n*n)}
	for i, row := range rows {
		if len(row) > n {
			return nil, fmt.Errorf("parse latency matrix: row %d has %d entries for %d nodes", i+1, len(row), n)
		}
		for j := range n {
			v := math.NaN()
			if j < len(row) && row[j] > 0 && i != j {
				if ms := row[j] * scale; !math.IsInf(ms, 0) {
					v = ms
				}
			}
			if i == j {
				v = 0
			}
			m.rtt[i*n+j] = v
		}
	}
	return m, nil
}

// Len returns the number of nodes.
func (m *Matrix) Len() int { return m.n }

// RTT returns the round-trip time from node i to node j in milliseconds; ok
// is false when it is unknown. RTT(i, i) is 0.
func (m *Matrix) RTT(i, j int) (ms float64, ok bool) {
	if m.base != nil {
		if i == j {
			return 0, true
		}
		oi, oj := int(m.origin[i]), int(m.origin[j])
		v, ok := m.base.RTT(oi, oj)
		return v + m.offset[i] + m.offset[j], ok
	}
	v := m.rtt[i*m.n+j]
	return v, !math.IsNaN(v)
}

// Sym returns the RTT between i and j in either direction: the mean of both
// measurements when both are known, else whichever is.
func (m *Matrix) Sym(i, j int) (ms float64, ok bool) {
	a, okA := m.RTT(i, j)
	b, okB := m.RTT(j, i)
	switch {
	case okA && okB:
		return (a + b) / 2, true
	case okA:
		return a, true
	case okB:
		return b, true
	}
	return 0, false
}

// Origin returns the base node a replicated node stands for (itself in a
// matrix that is not replicated).
func (m *Matrix) Origin(i int) int {
	if m.base == nil {
		return i
	}
	return int(m.origin[i])
}

// Nearest returns the smallest known positive RTT from node i to any other
// node (either direction); ok is false when none is known.
func (m *Matrix) Nearest(i int) (ms float64, ok bool) {
	best := math.Inf(1)
	for j := range m.n {
		if j == i {
			continue
		}
		if v, ok := m.Sym(i, j); ok && v > 0 && v < best {
			best = v
		}
	}
	return best, !math.IsInf(best, 1)
}

// Replicate enlarges m to size nodes by paper 000's method: nodes 0…Len()-1
// are m's own; every further node k is a replica of an original o (taken
// round-robin, so replicas spread evenly) placed at a distance r drawn
// uniformly from 10–50 % of o's nearest-neighbour RTT. A replica hangs off
// its original like a leaf: RTT(k, j) = RTT(o, origin(j)) + r_k + r_j
// (r = 0 for originals), RTT(k, o) = r_k, and two replicas of the same
// original are r_k + r_l apart. This keeps the triangle inequality wherever
// m does, and leaves unknown what m does not know. The result takes O(size)
// memory, not O(size²). size ≤ Len() returns m. Replicating a replicated
// matrix hangs the new nodes off the same base originals, at the copied
// replica's offset plus r.
func (m *Matrix) Replicate(size int, r *rand.Rand) *Matrix {
	if size <= m.n {
		return m
	}
	base := m
	if m.base != nil {
		base = m.base
	}
	out := &Matrix{n: size, base: base, origin: make([]int32, size), offset: make([]float64, size)}
	nearest := make([]float64, m.n)
	for i := range m.n {
		nearest[i], _ = m.Nearest(i)
	}
	for k := range size {
		if k < m.n {
			out.origin[k] = int32(m.Origin(k))
			if m.base != nil {
				out.offset[k] = m.offset[k]
			}
			continue
		}
		o := (k - m.n) % m.n
		nn := nearest[o]
		if math.IsInf(nn, 1) {
			nn = 0
		}
		out.origin[k] = int32(m.Origin(o))
		out.offset[k] = m.offsetOf(o) + nn*(0.1+0.4*r.Float64())
	}
	return out
}

func (m *Matrix) offsetOf(i int) float64 {
	if m.base == nil {
		return 0
	}
	return m.offset[i]
}
