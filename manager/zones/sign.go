package zones

import (
	"fmt"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// DefaultSignCache is how many signed certificates the Authority keeps,
// by default: a few for each leaf of a 10,000-member map.
const DefaultSignCache = 1 << 16

// signed is a certificate and its encoding.
type signed struct {
	cert zonecert.Cert
	raw  []byte
}

// certKey names what a certificate says.
type certKey struct {
	path   can.Path
	holder can.PeerID
	epoch  uint64
	expiry int64 // Unix ns
}

// signer signs leaves, keeping what it signed: a leaf's certificate
// changes only when its holder renews or the leaf changes, while every
// neighbour's renewal hands it out again. Two generations of at most
// max/2 each; a hit in the older one moves to the newer. Not safe for
// concurrent use: the Authority's mutex guards it.
type signer struct {
	key      crypto.PrivKey
	max      int
	cur, old map[certKey]signed
	// made counts signatures, hits certificates served from memory.
	made, hits int
}

func newSigner(key crypto.PrivKey, max int) *signer {
	if max < 2 {
		max = 2
	}
	return &signer{key: key, max: max, cur: map[certKey]signed{}}
}

func (s *signer) sign(l can.Leaf) (signed, error) {
	k := certKey{l.Path, l.Holder, l.Epoch, l.Expiry.UnixNano()}
	if c, ok := s.cur[k]; ok {
		s.hits++
		return c, nil
	}
	c, ok := s.old[k]
	if ok {
		s.hits++
	} else {
		cert, err := zonecert.Issue(l, s.key)
		if err != nil {
			return signed{}, err
		}
		raw, err := cert.MarshalBinary()
		if err != nil {
			return signed{}, fmt.Errorf("encode zone certificate %q: %w", l.Path, err)
		}
		c = signed{cert: cert, raw: raw}
		s.made++
	}
	if len(s.cur) >= s.max/2 {
		s.old, s.cur = s.cur, make(map[certKey]signed, len(s.cur))
	}
	s.cur[k] = c
	return c, nil
}
