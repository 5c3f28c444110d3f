package members

import (
	"bufio"
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// Answer decides what from, asking with req, is told.
func (r *Registry) Answer(from peer.ID, req entry.Request) entry.Answer {
	return r.AnswerContext(context.Background(), from, req)
}

// AnswerContext is Answer, with ctx bounding what an operation waits for
// (a report's liveness check). A request that names no operation is
// refused: what a peer holds is the zone map's to say, not the peer's.
func (r *Registry) AnswerContext(ctx context.Context, from peer.ID, req entry.Request) entry.Answer {
	if req.Op == "" {
		return entry.Answer{Refused: entry.RefusedNoOp}
	}
	a := r.answerOp(ctx, from, req)
	r.mu.Lock()
	a.Bounds = r.bounds
	r.mu.Unlock()
	return a
}

// Handle serves one entry stream; register it with
// h.SetStreamHandler(entry.Protocol, r.Handle). A change an operation
// makes is in the zone map's store by the time the asker hears back.
func (r *Registry) Handle(s network.Stream) {
	defer s.Close()
	s.SetDeadline(time.Now().Add(entry.Timeout))
	br := bufio.NewReader(s)
	var req entry.Request
	if err := entry.Decode(br, &req); err != nil || req.Validate() != nil {
		s.Reset()
		return
	}
	// Identify runs beside the first request on a new connection: the
	// addresses it brings are what the answers to the asker's new
	// neighbours name it by.
	select {
	case <-r.h.IdentifyWait(s.Conn()):
	case <-time.After(identifyWait):
	}
	ctx, cancel := context.WithTimeout(context.Background(), opWait)
	defer cancel()
	a := r.AnswerContext(ctx, s.Conn().RemotePeer(), req)
	if err := frame.Write(s, a, entry.MaxMessageSize); err != nil {
		s.Reset()
	}
}
