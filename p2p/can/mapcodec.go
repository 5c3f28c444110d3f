package can

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"
)

// The encoding of a Map, version 2:
//
//	"HCZM" 0x02
//	uvarint dim, varint ttl (ns), uvarint epoch
//	uvarint holders, each: uvarint length, ID bytes, varint expiry (Unix ns),
//	    byte 1 and dim float64 (IEEE 754 bits, little-endian) for the
//	    holder's point, or byte 0 for none
//	uvarint leaves, each: uvarint depth, the path's bits packed
//	    most significant first (unused low bits zero),
//	    uvarint holder index, uvarint epoch
//
// Holders are in strictly ascending ID order and leaves in strictly
// ascending path order, so a map has one encoding. Version 1, written
// before holders' points were kept, is version 2 without the point bytes;
// it is still read, its holders without points.
const (
	mapMagic   = "HCZM\x02"
	mapMagicV1 = "HCZM\x01"
	maxMapDim  = 16
	maxIDBytes = 256
)

// MarshalBinary encodes the map, for a manager to store in one value.
func (m *Map) MarshalBinary() ([]byte, error) {
	b := []byte(mapMagic)
	b = binary.AppendUvarint(b, uint64(m.dim))
	b = binary.AppendVarint(b, int64(m.ttl))
	b = binary.AppendUvarint(b, m.epoch)
	index := make(map[PeerID]uint64, len(m.ids))
	b = binary.AppendUvarint(b, uint64(len(m.ids)))
	for i, id := range m.ids {
		index[id] = uint64(i)
		b = binary.AppendUvarint(b, uint64(len(id)))
		b = append(b, id...)
		h := m.holders[id]
		b = binary.AppendVarint(b, h.expiry.UnixNano())
		if h.point == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		for _, v := range h.point {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	leaves := m.Leaves()
	b = binary.AppendUvarint(b, uint64(len(leaves)))
	for _, l := range leaves {
		b = binary.AppendUvarint(b, uint64(len(l.Path)))
		b = append(b, packPath(l.Path)...)
		b = binary.AppendUvarint(b, index[l.Holder])
		b = binary.AppendUvarint(b, l.Epoch)
	}
	return b, nil
}

// packPath packs p's bits into bytes, most significant first.
func packPath(p Path) []byte {
	out := make([]byte, (len(p)+7)/8)
	for i := 0; i < len(p); i++ {
		if p[i] == '1' {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

// UnmarshalBinary replaces m with the map data encodes. Data is stored
// bytes, so it is checked as outside input: anything that is not the
// encoding of a map the operations could have made is refused with an
// error wrapping ErrCorrupt, and m is left unchanged.
func (m *Map) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	nm, err := d.decodeMap()
	if err != nil {
		return fmt.Errorf("decode zone map: %w: %w", ErrCorrupt, err)
	}
	*m = *nm
	return nil
}

type decoder struct {
	b   []byte
	off int
}

func (d *decoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		return 0, fmt.Errorf("%s at byte %d: bad varint", what, d.off)
	}
	d.off += n
	return v, nil
}

func (d *decoder) varint(what string) (int64, error) {
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		return 0, fmt.Errorf("%s at byte %d: bad varint", what, d.off)
	}
	d.off += n
	return v, nil
}

func (d *decoder) bytes(n uint64, what string) ([]byte, error) {
	if n > uint64(len(d.b)-d.off) {
		return nil, fmt.Errorf("%s at byte %d: %d bytes past the end", what, d.off, n)
	}
	out := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return out, nil
}

// count reads a count of items of at least min bytes each, refusing one
// the rest of the input cannot hold.
func (d *decoder) count(what string, min int) (int, error) {
	n, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if n > uint64((len(d.b)-d.off)/min) {
		return 0, fmt.Errorf("%d %s, more than the input holds", n, what)
	}
	return int(n), nil
}

func (d *decoder) decodeMap() (*Map, error) {
	var points bool
	switch {
	case len(d.b) < len(mapMagic):
		return nil, fmt.Errorf("not a zone map")
	case string(d.b[:len(mapMagic)]) == mapMagic:
		points = true
	case string(d.b[:len(mapMagicV1)]) != mapMagicV1:
		return nil, fmt.Errorf("not a version 1 or 2 zone map")
	}
	d.off = len(mapMagic)
	dim, err := d.uvarint("dimension")
	if err != nil {
		return nil, err
	}
	if dim < 1 || dim > maxMapDim {
		return nil, fmt.Errorf("dimension %d outside 1..%d", dim, maxMapDim)
	}
	ttl, err := d.varint("ttl")
	if err != nil {
		return nil, err
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("ttl %d ns is not positive", ttl)
	}
	m := NewMap(int(dim), time.Duration(ttl))
	if m.epoch, err = d.uvarint("epoch"); err != nil {
		return nil, err
	}
	nh, err := d.count("holders", 3)
	if err != nil {
		return nil, err
	}
	hs := make([]*holder, nh)
	for i := range hs {
		n, err := d.uvarint("holder ID length")
		if err != nil {
			return nil, err
		}
		if n == 0 || n > maxIDBytes {
			return nil, fmt.Errorf("holder %d: ID of %d bytes, want 1..%d", i, n, maxIDBytes)
		}
		id, err := d.bytes(n, "holder ID")
		if err != nil {
			return nil, err
		}
		exp, err := d.varint("expiry")
		if err != nil {
			return nil, err
		}
		h := &holder{id: PeerID(id), expiry: time.Unix(0, exp).UTC()}
		if points {
			if h.point, err = d.point(int(dim)); err != nil {
				return nil, fmt.Errorf("holder %d: %w", i, err)
			}
		}
		if i > 0 && h.id <= hs[i-1].id {
			return nil, fmt.Errorf("holder %q after %q: not in ascending order", h.id, hs[i-1].id)
		}
		hs[i] = h
		m.addHolder(h)
	}
	nl, err := d.count("leaves", 3)
	if err != nil {
		return nil, err
	}
	if (nl == 0) != (nh == 0) {
		return nil, fmt.Errorf("%d leaves for %d holders", nl, nh)
	}
	leaves := make([]*mnode, nl)
	for i := range leaves {
		depth, err := d.uvarint("path depth")
		if err != nil {
			return nil, err
		}
		if depth > MaxDepth {
			return nil, fmt.Errorf("leaf %d: depth %d deeper than %d", i, depth, MaxDepth)
		}
		bits, err := d.bytes((depth+7)/8, "path")
		if err != nil {
			return nil, err
		}
		p, err := unpackPath(bits, int(depth))
		if err != nil {
			return nil, fmt.Errorf("leaf %d: %w", i, err)
		}
		hi, err := d.uvarint("holder index")
		if err != nil {
			return nil, err
		}
		if hi >= uint64(nh) {
			return nil, fmt.Errorf("leaf %d: holder %d of %d", i, hi, nh)
		}
		ep, err := d.uvarint("leaf epoch")
		if err != nil {
			return nil, err
		}
		if ep == 0 || ep > m.epoch {
			return nil, fmt.Errorf("leaf %d: epoch %d outside 1..%d", i, ep, m.epoch)
		}
		if i > 0 && p <= leaves[i-1].path {
			return nil, fmt.Errorf("leaf %.40q after %.40q: not in ascending order", string(p), string(leaves[i-1].path))
		}
		leaves[i] = &mnode{path: p, holder: hs[hi], epoch: ep}
	}
	if d.off != len(d.b) {
		return nil, fmt.Errorf("%d bytes after the map", len(d.b)-d.off)
	}
	if nl > 0 {
		if err := m.build(leaves); err != nil {
			return nil, err
		}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// point reads a holder's point of dim coordinates, or its absence.
func (d *decoder) point(dim int) (Point, error) {
	flag, err := d.bytes(1, "point flag")
	if err != nil {
		return nil, err
	}
	switch flag[0] {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("point flag %d, want 0 or 1", flag[0])
	}
	raw, err := d.bytes(uint64(8*dim), "point")
	if err != nil {
		return nil, err
	}
	p := make(Point, dim)
	for i := range p {
		p[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return p, nil
}

func unpackPath(bits []byte, depth int) (Path, error) {
	p := make([]byte, depth)
	for i := range p {
		p[i] = '0'
		if bits[i/8]&(0x80>>(i%8)) != 0 {
			p[i] = '1'
		}
	}
	if depth%8 != 0 && bits[len(bits)-1]&(0xff>>(depth%8)) != 0 {
		return "", fmt.Errorf("path's unused bits are not zero")
	}
	return Path(p), nil
}

// build makes the tree whose leaves are leaves, sorted by path, by
// splitting from the root (which keeps the neighbour lists right): a leaf
// that overlaps another or leaves a gap is refused.
func (m *Map) build(leaves []*mnode) error {
	next := 0
	// Iterative depth-first descent; the stack holds nodes to fill.
	stack := []*mnode{m.root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if next == len(leaves) {
			return fmt.Errorf("no leaf covers %.40q: a gap", string(n.path))
		}
		l := leaves[next]
		switch {
		case l.path == n.path:
			n.holder, n.epoch = l.holder, l.epoch
			l.holder.leaves = append(l.holder.leaves, n) // in path order
			next++
		case n.path.Covers(l.path):
			split(n)
			stack = append(stack, n.right, n.left)
		case l.path < n.path:
			return fmt.Errorf("leaf %.40q overlaps the leaf before it", string(l.path))
		default:
			return fmt.Errorf("no leaf covers %.40q: a gap before %.40q", string(n.path), string(l.path))
		}
	}
	if next != len(leaves) {
		return fmt.Errorf("leaf %.40q overlaps another", string(leaves[next].path))
	}
	return nil
}

// Check verifies the map's invariants (see Map) and returns what is broken.
// UnmarshalBinary calls it; the property tests call it after every
// operation.
func (m *Map) Check() error {
	if len(m.ids) != len(m.holders) || !slices.IsSorted(m.ids) {
		return fmt.Errorf("holder index of %d IDs for %d holders", len(m.ids), len(m.holders))
	}
	if len(m.holders) == 0 {
		if !m.root.leaf() || m.root.holder != nil {
			return fmt.Errorf("empty map with a tree")
		}
		return nil
	}
	seen := make(map[*holder]int, len(m.holders))
	var walk func(n *mnode) error
	walk = func(n *mnode) error {
		if !n.leaf() {
			if n.holder != nil {
				return fmt.Errorf("inner node %.40q has a holder", string(n.path))
			}
			for i, c := range [2]*mnode{n.left, n.right} {
				if c == nil || c.parent != n || c.path != n.path+Path("01"[i:i+1]) {
					return fmt.Errorf("node %.40q: broken child %d", string(n.path), i)
				}
				if err := walk(c); err != nil {
					return err
				}
			}
			if n.left.leaf() && n.right.leaf() && n.left.holder == n.right.holder {
				return fmt.Errorf("%s holds both halves of %.40q", n.left.holder.id, string(n.path))
			}
			return nil
		}
		h := n.holder
		if h == nil {
			return fmt.Errorf("leaf %.40q has no holder: a gap", string(n.path))
		}
		if m.holders[h.id] != h {
			return fmt.Errorf("leaf %.40q held by %s, not in the map", string(n.path), h.id)
		}
		for k := range n.zone.Lo {
			if !(n.zone.Hi[k] > n.zone.Lo[k]) {
				return fmt.Errorf("leaf %.40q has width 0 along dimension %d: it abuts nothing", string(n.path), k)
			}
		}
		if n.epoch == 0 || n.epoch > m.epoch {
			return fmt.Errorf("leaf %.40q: epoch %d outside 1..%d", string(n.path), n.epoch, m.epoch)
		}
		i := seen[h]
		if i >= len(h.leaves) || h.leaves[i] != n {
			return fmt.Errorf("leaf %.40q missing from %s's leaves", string(n.path), h.id)
		}
		seen[h] = i + 1
		return nil
	}
	if m.root.parent != nil || m.root.path != "" {
		return fmt.Errorf("root is not the unit box")
	}
	if err := walk(m.root); err != nil {
		return err
	}
	for id, h := range m.holders {
		if seen[h] != len(h.leaves) || len(h.leaves) == 0 {
			return fmt.Errorf("%s lists %d leaves, holds %d", id, len(h.leaves), seen[h])
		}
		if h.point != nil && (len(h.point) != m.dim || !slices.EqualFunc(h.point, Clamp(h.point), func(a, b float64) bool { return a == b })) {
			return fmt.Errorf("%s's point %v is not in the %d-dimensional box", id, h.point, m.dim)
		}
	}
	return nil
}
