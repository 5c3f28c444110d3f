package node

import (
	"slices"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

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

// holds reports whether one of zones contains p.
func holds(zones []can.Zone, p can.Point) bool {
	return slices.ContainsFunc(zones, func(z can.Zone) bool { return z.Contains(p) })
}
