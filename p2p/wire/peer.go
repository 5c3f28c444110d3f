package wire

import (
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// AddrBytes encodes addresses for a Peer record: at most MaxAddrs.
func AddrBytes(as []ma.Multiaddr) [][]byte {
	out := make([][]byte, 0, min(len(as), MaxAddrs))
	for _, a := range as[:min(len(as), MaxAddrs)] {
		out = append(out, a.Bytes())
	}
	return out
}

// Decode returns the ID and addresses of a record its message's Validate
// accepted.
func (p *Peer) Decode() (peer.ID, []ma.Multiaddr) {
	id, _ := peer.IDFromBytes(p.Id)
	out := make([]ma.Multiaddr, 0, len(p.Addrs))
	for _, b := range p.Addrs {
		if m, err := ma.NewMultiaddrBytes(b); err == nil {
			out = append(out, m)
		}
	}
	return id, out
}
