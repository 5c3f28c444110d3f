package node

import (
	"slices"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

func toWireZones(zs []can.Zone) []*wire.Zone {
	out := make([]*wire.Zone, len(zs))
	for i, z := range zs {
		out[i] = &wire.Zone{Lo: append([]float64(nil), z.Lo...), Hi: append([]float64(nil), z.Hi...)}
	}
	return out
}

// fromWireZones converts zones already checked by wire and checks them
// against the CAN's rules (dimension d, made by halving).
func fromWireZones(zs []*wire.Zone, d int) ([]can.Zone, bool) {
	out := make([]can.Zone, 0, len(zs))
	for _, w := range zs {
		z := can.Zone{Lo: append(can.Point(nil), w.Lo...), Hi: append(can.Point(nil), w.Hi...)}
		if z.Validate(d) != nil {
			return nil, false
		}
		out = append(out, z)
	}
	return out, true
}

func addrBytes(as []ma.Multiaddr) [][]byte {
	out := make([][]byte, 0, len(as))
	for _, a := range as {
		if len(out) == wire.MaxAddrs {
			break
		}
		out = append(out, a.Bytes())
	}
	return out
}

// peerAddrs decodes a wire peer's ID and addresses (already validated).
func peerAddrs(p *wire.Peer) (peer.ID, []ma.Multiaddr) {
	id, _ := peer.IDFromBytes(p.Id)
	out := make([]ma.Multiaddr, 0, len(p.Addrs))
	for _, b := range p.Addrs {
		if m, err := ma.NewMultiaddrBytes(b); err == nil {
			out = append(out, m)
		}
	}
	return id, out
}

func volume(zs []can.Zone) float64 {
	v := 0.0
	for _, z := range zs {
		v += z.Volume()
	}
	return v
}

// abutsAny reports whether some zone of a abuts some zone of b.
func abutsAny(a, b []can.Zone) bool {
	for _, x := range a {
		for _, y := range b {
			if can.Abuts(x, y) {
				return true
			}
		}
	}
	return false
}

// related reports whether b's zones abut a's or overlap them. Overlapping
// peers are kept in the neighbour table so that their heartbeats settle the
// conflict (see onHeartbeat).
func related(a, b []can.Zone) bool { return abutsAny(a, b) || overlapsAny(a, b) }

// holds reports whether one of zones contains p.
func holds(zones []can.Zone, p can.Point) bool {
	return slices.ContainsFunc(zones, func(z can.Zone) bool { return z.Contains(p) })
}

func overlapsAny(a, b []can.Zone) bool {
	for _, x := range a {
		for _, y := range b {
			if can.Overlaps(x, y) {
				return true
			}
		}
	}
	return false
}

// merge replaces sibling pairs by their parent until none is left, after
// dropping every zone another one contains (a duplicate among them), so
// the result never holds an area twice.
func merge(zs []can.Zone) []can.Zone {
	out := make([]can.Zone, 0, len(zs))
	for i, z := range zs {
		inside := false
		for j, o := range zs {
			// Of equal zones, the first is kept.
			if j != i && contains(o, z) && (!z.Equal(o) || j < i) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, z)
		}
	}
	for changed := true; changed; {
		changed = false
	outer:
		for i := range out {
			sib, ok := out[i].Sibling()
			if !ok {
				continue
			}
			for j := range out {
				if j != i && out[j].Equal(sib) {
					parent, _ := out[i].Parent()
					rest := make([]can.Zone, 0, len(out)-1)
					for k := range out {
						if k != i && k != j {
							rest = append(rest, out[k])
						}
					}
					out = append(rest, parent)
					changed = true
					break outer
				}
			}
		}
	}
	return out
}

// contains reports whether box a contains box b.
func contains(a, b can.Zone) bool {
	for i := range a.Lo {
		if b.Lo[i] < a.Lo[i] || b.Hi[i] > a.Hi[i] {
			return false
		}
	}
	return true
}

// subtract removes from zs every area that others cover. Zones made by
// halving are nested or disjoint, so a zone inside one of zs is cut out by
// halving down to it, and a zone of zs inside another is dropped.
func subtract(zs, others []can.Zone) []can.Zone {
	return minusAll(zs, others, func(m, o can.Zone) []can.Zone {
		if contains(o, m) {
			return nil // dropped whole
		}
		return carve(m, o)
	})
}

// minusAll removes from zs every area that others cover, cutting each
// piece m that overlaps one of them, o, into minus(m, o): m without o.
func minusAll(zs, others []can.Zone, minus func(m, o can.Zone) []can.Zone) []can.Zone {
	out := slices.Clone(zs)
	for _, o := range others {
		var next []can.Zone
		for _, m := range out {
			if can.Overlaps(m, o) {
				next = append(next, minus(m, o)...)
			} else {
				next = append(next, m)
			}
		}
		if out = next; len(out) == 0 {
			break
		}
	}
	return out
}

// carve returns m without o, for o inside m, as the halves split off on
// the way down from m to o.
func carve(m, o can.Zone) []can.Zone {
	var out []can.Zone
	for !m.Equal(o) && m.Depth() < o.Depth() {
		lo, hi := m.Split()
		if contains(lo, o) {
			out, m = append(out, hi), lo
		} else {
			out, m = append(out, lo), hi
		}
	}
	return out
}
