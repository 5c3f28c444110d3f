package can

// Abutting returns the candidates holding a zone that abuts one of self:
// the neighbour table a networked peer keeps out of everything heartbeats
// and joins announce. The result shares memory with candidates' elements.
func Abutting(self []Zone, candidates []NeighbourInfo) []NeighbourInfo {
	var out []NeighbourInfo
	for _, c := range candidates {
		if abutsAny(self, c.Zones) {
			out = append(out, c)
		}
	}
	return out
}

func abutsAny(a, b []Zone) bool {
	for _, x := range a {
		for _, y := range b {
			if Abuts(x, y) {
				return true
			}
		}
	}
	return false
}

// Heir decides, from a networked peer's local knowledge, who takes over zone
// z of a departed peer, by the rule Overlay applies: on a graceful leave the
// candidate holding exactly z's sibling (the two merge back); otherwise the
// candidate with a zone abutting z and the smallest total volume, ties to
// the smaller PeerID. candidates should be the departed peer's neighbours
// (its last heartbeat lists them) with their zones. ok is false when no
// candidate abuts z.
func Heir(z Zone, candidates []NeighbourInfo, graceful bool) (id PeerID, ok bool) {
	if sib, hasSib := z.Sibling(); graceful && hasSib {
		for _, c := range candidates {
			for _, cz := range c.Zones {
				if cz.Equal(sib) {
					return c.ID, true
				}
			}
		}
	}
	best := -1.0
	for _, c := range candidates {
		if !abutsAny([]Zone{z}, c.Zones) {
			continue
		}
		v := 0.0
		for _, cz := range c.Zones {
			v += cz.Volume()
		}
		if !ok || v < best || (v == best && c.ID < id) {
			id, best, ok = c.ID, v, true
		}
	}
	return id, ok
}

// Merge folds zones whose sibling is also in zones into their parent,
// repeatedly, and returns the result: what a peer holding several zones
// keeps after a takeover.
func Merge(zones []Zone) []Zone {
	out := append([]Zone(nil), zones...)
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(out) && !merged; i++ {
			sib, ok := out[i].Sibling()
			if !ok {
				continue
			}
			for j := range out {
				if j != i && out[j].Equal(sib) {
					par, _ := out[i].Parent()
					out[i] = par
					out = append(out[:j], out[j+1:]...)
					merged = true
					break
				}
			}
		}
	}
	return out
}
