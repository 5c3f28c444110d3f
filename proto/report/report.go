// Package report carries a crawler's word that it cancelled a task back to
// the manager. design.md §9: the success rate that drives IIR, ICR and the
// controller must count only load-dependent failures — tasks a crawler
// cancelled because they waited longer than their recrawl interval, or
// refused because its queue was full — and not tasks lost without a word
// in a crash, which the next round re-executes anyway. Without this report
// the manager could only see every failure as a deadline passing.
//
// A report carries the task's signed envelope, so only a peer that was
// given the task can report it, and it can only report a task the manager
// issued. The worst a hostile peer can do is cancel a task it was handed
// anyway. Messages are varint-length-prefixed JSON.
package report

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// Protocol is the libp2p protocol ID of cancellation reports.
const Protocol = "/hivecrawl/manager/report/1.0.0"

// Reasons a crawler gives.
const (
	// Expired: the task waited in the queue longer than its interval.
	Expired = "expired"
	// Refused: the crawler's queue was full.
	Refused = "refused"
	// HandedBack: the crawler is leaving and no neighbour could queue
	// the task. Not a failure of the round: the manager issues the
	// task's host again at once.
	HandedBack = "handed back"
)

// Limits of the protocol.
const (
	MaxMessageSize = envelope.MaxSize + 1<<10
	timeout        = 10 * time.Second
)

// ErrMalformed is wrapped by every decoding failure.
var ErrMalformed = frame.ErrMalformed

// Report is what a crawler sends.
type Report struct {
	// Task is the task's signed envelope, as it arrived.
	Task   []byte `json:"task"`
	Reason string `json:"reason"`
}

// Answer is the manager's reply.
type Answer struct {
	// Counted is set when the report changed the task's state; a task
	// already finished (or reported) is acknowledged without it.
	Counted bool   `json:"counted,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Validate checks what a decoder cannot.
func (r *Report) Validate() error {
	if len(r.Task) == 0 {
		return fmt.Errorf("%w: no task", ErrMalformed)
	}
	if r.Reason != Expired && r.Reason != Refused && r.Reason != HandedBack {
		return fmt.Errorf("%w: unknown reason %q", ErrMalformed, r.Reason)
	}
	return nil
}

// Handler returns a stream handler that decodes reports and passes them
// to count, which verifies the envelope and records the cancellation.
func Handler(count func(ctx context.Context, from peer.ID, r Report) (bool, error)) network.StreamHandler {
	return func(s network.Stream) {
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s.SetDeadline(time.Now().Add(timeout))
		var r Report
		if err := Decode(bufio.NewReader(s), &r); err != nil {
			s.Reset()
			return
		}
		var a Answer
		if err := r.Validate(); err != nil {
			a.Error = err.Error()
		} else if a.Counted, err = count(ctx, s.Conn().RemotePeer(), r); err != nil {
			a.Error = err.Error()
		}
		if err := write(s, a); err != nil {
			s.Reset()
		}
	}
}

// StreamOpener is what Send needs from a libp2p host.
type StreamOpener = frame.StreamOpener

// Send reports r to the manager and returns its answer.
func Send(ctx context.Context, h StreamOpener, manager peer.ID, r Report) (Answer, error) {
	var a Answer
	if err := frame.Call(ctx, h, manager, Protocol, r, &a, MaxMessageSize, timeout); err != nil {
		return Answer{}, fmt.Errorf("report cancelled task: %w", err)
	}
	if a.Error != "" {
		return a, fmt.Errorf("report cancelled task: the manager says: %s", a.Error)
	}
	return a, nil
}

func write(w io.Writer, v any) error { return frame.Write(w, v, MaxMessageSize) }

// Decode reads one framed message into v, strictly.
func Decode(r *bufio.Reader, v any) error { return frame.Read(r, v, MaxMessageSize) }
