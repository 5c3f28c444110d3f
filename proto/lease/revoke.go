package lease

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// RevokeProtocol is the libp2p protocol ID of the manager's word to a
// crawler that its leases are over at once, so its crawls stop before
// their next request rather than at their next renewal: every lease,
// when the manager withdrew its request-signing key, or one, when the
// site of that lease's host opted out. The crawler believes only the
// manager (the stream's remote peer, which the secure channel proved);
// renewals, refused from then on, are the fallback when the word does
// not reach it.
const RevokeProtocol = "/hivecrawl/manager/lease-revoke/1.0.0"

// Bounds of a revocation's fields.
const (
	MaxReasonLen = 512
	maxTaskIDLen = 128
	maxHostLen   = 261 // a DNS name and a port
)

// Revocation ends the leases of the crawler it is sent to: the lease of
// TaskID alone when it is set, else every one.
type Revocation struct {
	// Reason is the operator's, shown to the volunteer.
	Reason string `json:"reason"`
	// TaskID names the one lease that is over (its site opted out); the
	// crawler's other leases go on. A crawler older than this field
	// refuses a revocation that sets it, as its decoding is strict,
	// instead of taking it for the end of every lease; its next renewal
	// is refused instead.
	TaskID string `json:"task_id,omitempty"`
	// Host is the web host of TaskID's lease, for the volunteer's log.
	Host string `json:"host,omitempty"`
}

// Validate checks what a decoder cannot.
func (r *Revocation) Validate() error {
	switch {
	case len(r.Reason) > MaxReasonLen:
		return fmt.Errorf("%w: reason of %d bytes, at most %d", ErrMalformed, len(r.Reason), MaxReasonLen)
	case len(r.TaskID) > maxTaskIDLen || len(r.Host) > maxHostLen:
		return fmt.Errorf("%w: task ID or host too long", ErrMalformed)
	case r.Host != "" && r.TaskID == "":
		return fmt.Errorf("%w: a host without its task", ErrMalformed)
	}
	return nil
}

// revocationAck is the crawler's answer: its leases are ended.
type revocationAck struct {
	Ended bool `json:"ended"`
}

// Revoke tells crawler p that its leases (r.TaskID's alone, when set)
// are over, and returns once it acknowledged (or an error when it was
// not reached: its next renewal is refused instead).
func Revoke(ctx context.Context, h StreamOpener, p peer.ID, r Revocation) error {
	what := "the leases"
	if r.TaskID != "" {
		what = "the lease of task " + r.TaskID
	}
	var a revocationAck
	if err := frame.Call(ctx, h, p, RevokeProtocol, r, &a, MaxMessageSize, timeout); err != nil {
		return fmt.Errorf("revoke %s of %s: %w", what, p, err)
	}
	if !a.Ended {
		return fmt.Errorf("revoke %s of %s: not acknowledged", what, p)
	}
	return nil
}

// RevokeHandler returns the crawler's stream handler for revocations:
// one from manager ends the leases it names by calling end before the
// answer goes out; one from any other peer is dropped.
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
