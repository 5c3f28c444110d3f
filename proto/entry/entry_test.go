package entry

import (
	"bufio"
	"bytes"
	"errors"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	frame.Write(&buf, Request{Op: OpRenew, Coord: []float64{12, 30}, CoordError: 0.2, Samples: 40, Capacity: 1.5}, MaxMessageSize)
	f.Add(buf.Bytes())
	buf.Reset()
	frame.Write(&buf, Request{Op: OpJoin, Point: []float64{0.1, 0.2, 0.3}}, MaxMessageSize)
	f.Add(buf.Bytes())
	buf.Reset()
	frame.Write(&buf, Request{Op: OpReport, Suspect: "12D3KooWSkYjCdDQXNg2bbzCqu6dD1M6gWx4NNMgd8LdyvCgAW51"}, MaxMessageSize)
	f.Add(buf.Bytes())
	buf.Reset()
	frame.Write(&buf, Answer{Certs: [][]byte{{1, 1, 0x80, 2, 3}}, Peers: []Peer{{ID: "x", Addrs: []string{"/ip4/127.0.0.1/tcp/1"}}}, Refused: RefusedJoinAgain}, MaxMessageSize)
	f.Add(buf.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Answer
		if Decode(bufio.NewReader(bytes.NewReader(b)), &a) == nil {
			for _, p := range a.Peers {
				p.AddrInfo() // must not panic on any decoded peer
			}
			for _, c := range a.Certs {
				zonecert.Decode(c)
			}
		}
		var r Request
		if Decode(bufio.NewReader(bytes.NewReader(b)), &r) == nil {
			r.Validate()
		}
	})
}

// TestOpValidate: the fields of operations are checked before anything
// is decided.
func TestOpValidate(t *testing.T) {
	_, id := newKeyID(t)
	for _, tc := range []struct {
		name string
		req  Request
		ok   bool
	}{
		{"renewal", Request{Op: OpRenew, Coord: []float64{12, 30}, Capacity: 1.5}, true},
		{"no operation", Request{Coord: []float64{12, 30}}, false},
		{"join", Request{Op: OpJoin, Point: []float64{0, 0.5, 1}}, true},
		{"report", Request{Op: OpReport, Suspect: id.String()}, true},
		{"unknown op", Request{Op: "claim"}, false},
		{"join without a point", Request{Op: OpJoin}, false},
		{"point outside the box", Request{Op: OpMove, Point: []float64{0.5, 1.5}}, false},
		{"point of too many dimensions", Request{Op: OpJoin, Point: make([]float64, maxDim+1)}, false},
		{"point with a renewal", Request{Op: OpRenew, Point: []float64{0.5}}, false},
		{"report without a peer ID", Request{Op: OpReport, Suspect: "nobody"}, false},
		{"suspect with a leave", Request{Op: OpLeave, Suspect: id.String()}, false},
	} {
		err := tc.req.Validate()
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func newKeyID(t *testing.T) (crypto.PrivKey, peer.ID) {
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, id
}
