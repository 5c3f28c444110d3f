package wire

import (
	"context"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// Opener opens streams to peers; a libp2p host is one.
type Opener interface {
	NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error)
}

// Call asks peer p one request on protocol pid, over a relayed connection
// when that is all there is (AllowRelayed): it sends req (at most maxReq
// bytes), reads the answer into resp (at most maxResp bytes) and reports
// whether the stream went through a relay. A stream that fails is reset.
func Call(ctx context.Context, h Opener, p peer.ID, pid protocol.ID, req Message, maxReq int, resp Message, maxResp int) (relayed bool, err error) {
	s, err := h.NewStream(AllowRelayed(ctx), p, pid)
	if err != nil {
		return false, err
	}
	defer s.Close()
	if err := NewConn(s, maxResp).Exchange(ctx, req, maxReq, resp); err != nil {
		s.Reset()
		return false, err
	}
	return Relayed(s.Conn()), nil
}

// Answer answers one request on stream s, the other end of Call: it reads
// a request of at most maxReq bytes into req, then writes what answer
// returns for it (at most maxResp bytes), within DefaultTimeout, and
// closes s. A request that does not read resets the stream.
func Answer(s network.Stream, req Message, maxReq, maxResp int, answer func(ctx context.Context, from peer.ID) Message) error {
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	c := NewConn(s, maxReq)
	if err := c.Read(ctx, req); err != nil {
		s.Reset()
		return err
	}
	return c.Write(ctx, answer(ctx, s.Conn().RemotePeer()), maxResp)
}
