package lease

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/internal/frame"
)

// RevokeProtocol is the libp2p protocol ID of the manager's word to a
// crawler that every lease it holds is over at once: the manager
// withdrew its request-signing key, so its crawls must stop before
// their next request rather than at their next renewal. The crawler
// believes only the manager (the stream's remote peer, which the secure
// channel proved); renewals, refused from then on, are the fallback
// when the word does not reach it.
const RevokeProtocol = "/hivecrawl/manager/lease-revoke/1.0.0"

// MaxReasonLen bounds a revocation's reason.
const MaxReasonLen = 512

// Revocation ends every lease of the crawler it is sent to.
type Revocation struct {
	// Reason is the operator's, shown to the volunteer.
	Reason string `json:"reason"`
}

// Validate checks what a decoder cannot.
func (r *Revocation) Validate() error {
	if len(r.Reason) > MaxReasonLen {
		return fmt.Errorf("%w: reason of %d bytes, at most %d", ErrMalformed, len(r.Reason), MaxReasonLen)
	}
	return nil
}

// revocationAck is the crawler's answer: its leases are ended.
type revocationAck struct {
	Ended bool `json:"ended"`
}

// Revoke tells crawler p that all its leases are over, and returns once
// it acknowledged (or an error when it was not reached: its next renewal
// is refused instead).
func Revoke(ctx context.Context, h StreamOpener, p peer.ID, r Revocation) error {
	var a revocationAck
	if err := frame.Call(ctx, h, p, RevokeProtocol, r, &a, MaxMessageSize, timeout); err != nil {
		return fmt.Errorf("revoke the leases of %s: %w", p, err)
	}
	if !a.Ended {
		return fmt.Errorf("revoke the leases of %s: not acknowledged", p)
	}
	return nil
}

// RevokeHandler returns the crawler's stream handler for revocations:
// one from manager ends every lease by calling end before the answer
// goes out; one from any other peer is dropped.
func RevokeHandler(manager peer.ID, end func(Revocation)) network.StreamHandler {
	return func(s network.Stream) {
		defer s.Close()
		if s.Conn().RemotePeer() != manager {
			s.Reset()
			return
		}
		s.SetDeadline(time.Now().Add(timeout))
		var r Revocation
		if err := frame.Read(bufio.NewReader(s), &r, MaxMessageSize); err != nil || r.Validate() != nil {
			s.Reset()
			return
		}
		end(r)
		if err := frame.Write(s, revocationAck{Ended: true}, MaxMessageSize); err != nil {
			s.Reset()
		}
	}
}
