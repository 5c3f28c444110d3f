// Package lease is the protocol by which a crawler claims, renews and
// releases its task's lease on a web host with the manager (design.md §8).
//
// The manager is the one authority on who may crawl a host: it grants at
// most one lease per host that can still be live, and signs it into the
// task. A crawler claims it before the first request to the host, renews it
// while it crawls, with a small progress report, and stops before it
// expires unless renewed; a crawler that leaves gracefully releases it
// after it stopped, so the heir it hands the task to can claim it. Copies
// of one task that the overlay may briefly hold at two peers (a zone
// overlap, a replay) cannot both run: the second claim is refused.
//
// Requests are authenticated by the libp2p stream: the requester is the
// stream's remote peer, whose identity the secure channel proved, so a
// peer can claim, renew or release only in its own name. Messages are
// varint-length-prefixed JSON (proto/frame).
package lease

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// Protocol is the libp2p protocol ID of lease requests.
const Protocol = "/hivecrawl/manager/lease/1.0.0"

// Operations.
const (
	Claim   = "claim"
	Renew   = "renew"
	Release = "release"
)

// Limits of the protocol.
const (
	// MaxAddrs is the most addresses a request may report.
	MaxAddrs       = 8
	MaxMessageSize = envelope.MaxSize + 2*zonecert.MaxProofSize + 4<<10
	timeout        = 10 * time.Second
)

// Errors callers branch on.
var (
	// ErrHeld: another crawler holds the host's lease; claim again later.
	ErrHeld = errors.New("the host's lease is held by another crawler")
	// ErrOver: the lease cannot be claimed or renewed any more; stop the
	// crawl or drop the task.
	ErrOver = errors.New("the task's lease is over")
	// ErrMalformed is wrapped by every decoding failure.
	ErrMalformed = frame.ErrMalformed
)

// Request is what a crawler sends.
type Request struct {
	Op string `json:"op"`
	// Task is the task's signed envelope (claims), so the manager sees
	// the genuine task; renewals and releases name it by ID.
	Task []byte `json:"task,omitempty"`
	// Proof (claims) shows that the claimer may hold the task: the
	// certificate of the zone holding its target and the hand-offs that
	// brought it from that zone's holder (p2p/zonecert.Proof, encoded).
	Proof  []byte `json:"proof,omitempty"`
	TaskID string `json:"task_id"`
	Epoch  uint64 `json:"epoch"`
	// Pages, Requests and Wait are the crawl's progress (renewals): the
	// pages fetched so far, the requests to the host that ended at the
	// crawler, and how long the host asked the next request to wait
	// (Crawl-delay, Retry-After). The manager renews a lease only while
	// its crawl moves, or its host asked it to wait.
	Pages    int           `json:"pages,omitempty"`
	Requests int           `json:"requests,omitempty"`
	Wait     time.Duration `json:"wait,omitempty"`
	// BotKey is the crawler's Ed25519 public key for signing HTTP
	// requests (claims): the manager certifies it in its key directory.
	BotKey []byte `json:"bot_key,omitempty"`
	// Addrs are the IP addresses the crawler resolved the task's host
	// to (claims): the manager counts the host's leases against them.
	Addrs []string `json:"addrs,omitempty"`
	// Version is the crawler's release (claims), which the manager holds
	// against its minimum.
	Version string `json:"version,omitempty"`
}

// Answer is the manager's reply.
type Answer struct {
	// Granted is set when the claim or renewal was granted, or the
	// release recorded.
	Granted bool `json:"granted,omitempty"`
	// Expires is when the lease ends unless renewed (claims, renewals).
	Expires time.Time `json:"expires,omitzero"`
	// RenewEvery is how often the holder should renew.
	RenewEvery time.Duration `json:"renew_every,omitempty"`
	// Held is set when another crawler holds the lease (claim later);
	// otherwise a refusal is final.
	Held  bool   `json:"held,omitempty"`
	Error string `json:"error,omitempty"`
	// RetryIn, on a held claim, is how long until the wait that holds it
	// has passed (the IP wait, the politeness wait after a release), when
	// the manager knows: the crawler claims again then, when that is
	// sooner than at its own pace.
	RetryIn time.Duration `json:"retry_in,omitempty"`
	// Outdated, on a refused claim, says that the crawler's version is
	// older than the network's minimum and how to update; the crawler
	// takes no task until it is updated.
	Outdated string `json:"outdated,omitempty"`
	// Withdrawn, on a refusal, says that the crawler's request-signing
	// key was withdrawn, and why: every lease it holds is over, not
	// only this one (as after a Revocation).
	Withdrawn string `json:"withdrawn,omitempty"`
}

// Validate checks what a decoder cannot.
func (r *Request) Validate() error {
	switch {
	case r.Op != Claim && r.Op != Renew && r.Op != Release:
		return fmt.Errorf("%w: unknown operation %q", ErrMalformed, r.Op)
	case r.TaskID == "" || len(r.TaskID) > 128:
		return fmt.Errorf("%w: task ID must be 1 to 128 bytes", ErrMalformed)
	case r.Op == Claim && len(r.Task) == 0:
		return fmt.Errorf("%w: a claim carries the signed task", ErrMalformed)
	case len(r.Proof) > zonecert.MaxProofSize:
		return fmt.Errorf("%w: proof of %d bytes, at most %d", ErrMalformed, len(r.Proof), zonecert.MaxProofSize)
	case len(r.Version) > 64:
		return fmt.Errorf("%w: version of %d bytes", ErrMalformed, len(r.Version))
	case len(r.BotKey) > 64:
		return fmt.Errorf("%w: bot key of %d bytes", ErrMalformed, len(r.BotKey))
	case r.Pages < 0 || r.Requests < 0 || r.Wait < 0:
		return fmt.Errorf("%w: negative progress", ErrMalformed)
	case len(r.Addrs) > MaxAddrs:
		return fmt.Errorf("%w: %d addresses, at most %d", ErrMalformed, len(r.Addrs), MaxAddrs)
	}
	for _, a := range r.Addrs {
		if _, err := netip.ParseAddr(a); err != nil {
			return fmt.Errorf("%w: address %q: %w", ErrMalformed, a, err)
		}
	}
	return nil
}

// Handler returns a stream handler that decodes requests and passes them
// to decide, which answers them.
func Handler(decide func(ctx context.Context, from peer.ID, r Request) Answer) network.StreamHandler {
	return func(s network.Stream) {
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s.SetDeadline(time.Now().Add(timeout))
		var r Request
		if err := frame.Read(bufio.NewReader(s), &r, MaxMessageSize); err != nil {
			s.Reset()
			return
		}
		var a Answer
		if err := r.Validate(); err != nil {
			a.Error = err.Error()
		} else {
			a = decide(ctx, s.Conn().RemotePeer(), r)
		}
		if err := frame.Write(s, a, MaxMessageSize); err != nil {
			s.Reset()
		}
	}
}

// StreamOpener is what Send needs from a libp2p host.
type StreamOpener = frame.StreamOpener

// Send sends r to the manager and returns its answer. A refusal is an
// error wrapping ErrHeld or ErrOver; any other error means the manager
// was not reached or did not answer, and the caller may try again.
func Send(ctx context.Context, h StreamOpener, manager peer.ID, r Request) (Answer, error) {
	var a Answer
	if err := frame.Call(ctx, h, manager, Protocol, r, &a, MaxMessageSize, timeout); err != nil {
		return Answer{}, fmt.Errorf("%s lease of task %s: %w", r.Op, r.TaskID, err)
	}
	switch {
	case a.Granted:
		return a, nil
	case a.Held:
		return a, fmt.Errorf("%s lease of task %s: %w: %s", r.Op, r.TaskID, ErrHeld, a.Error)
	default:
		return a, fmt.Errorf("%s lease of task %s: %w: %s", r.Op, r.TaskID, ErrOver, a.Error)
	}
}
