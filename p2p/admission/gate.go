package admission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Gate is one peer's admission: it opens the tasks that reach the peer,
// applies the rules where the peer would queue a task or balance it
// onward, records each task it admits as seen, and counts and logs what
// it refuses. A task is recorded as seen only once every other rule has
// passed, just before it is queued or balanced onward (a crash in between
// leaves it refused next time, never queued twice). A Gate is safe for
// concurrent use.
type Gate struct {
	self    peer.ID
	manager crypto.PubKey
	seen    SeenSet
	dim     int
	hostRTT func(hostPort string) (time.Duration, bool)
	log     *slog.Logger

	mu     sync.Mutex
	counts Counts
	// passed holds the deliveries (Key) this peer balanced or shared to a
	// neighbour, until their lease ends: one handed back by that
	// neighbour's leave is this peer's again, not a replay.
	passed map[string]time.Time
}

// Counts are the tasks a Gate refused, by reason, and the deliveries that
// came back.
type Counts struct {
	Invalid     int64 // forged, altered or not a task (envelope.Open)
	Expired     int64 // no lease on the host, or the lease ended (ErrNoLease)
	IssuedAhead int64 // issued more than MaxClockSkew after our clock (ErrIssuedAhead)
	Mistargeted int64 // signed target missing or not the insert's (ErrTargetMismatch)
	Misaimed    int64 // balanced here by a peer not holding the target (ErrMisaimed)
	Replayed    int64 // seen here before (ErrSeen)
	// Returned counts the tasks this peer passed on (Passed) that came
	// back with the neighbour's zone when it left.
	Returned int64
}

// NewGate returns the gate of peer self, in a CAN space of dim
// dimensions, admitting tasks signed with manager and recording them in
// seen. hostRTT returns the peer's own last measured round trip to a web
// host (host:port), nil when it measures none; log nil means
// slog.Default().
func NewGate(self peer.ID, manager crypto.PubKey, seen SeenSet, dim int, hostRTT func(hostPort string) (time.Duration, bool), log *slog.Logger) *Gate {
	if hostRTT == nil {
		hostRTT = func(string) (time.Duration, bool) { return 0, false }
	}
	if log == nil {
		log = slog.Default()
	}
	return &Gate{self: self, manager: manager, seen: seen, dim: dim, hostRTT: hostRTT, log: log, passed: map[string]time.Time{}}
}

// Insert is a task as it reached the peer in an insert.
type Insert struct {
	Envelope []byte
	Target   can.Point // clamped
	// From is the peer that balanced or shared the task here, "" when
	// Target lies in this peer's zones. Then Path checks the path of
	// certificates the insert carries (CheckPath, with the peer's book),
	// and Proof is the proof that this peer may claim the task.
	From  peer.ID
	Path  func() error
	Proof []byte
	// Sharer is the sharer's round trip to the task's host, 0 unless the
	// task was shared (CheckNear).
	Sharer time.Duration
}

// Admit opens the task of in and applies the rules: its lease and issue
// time, its signed target, with From set its path and proof, its host's
// distance when shared, and seen before. A task admitted is recorded as
// seen.
func (g *Gate) Admit(ctx context.Context, in Insert) (*task.Task, error) {
	t, err := g.open(in.Envelope, in.From)
	if err != nil {
		return nil, fmt.Errorf("task refused: %w", err)
	}
	err = CheckLease(t, time.Now())
	if err == nil {
		err = CheckTarget(t, in.Target, g.dim)
	}
	if err == nil && in.From != "" {
		if perr := in.Path(); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		} else if perr := CheckProof(in.Proof, g.manager, g.claim(t, in.Target)); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		}
	}
	if err == nil {
		here, measured := g.hostRTT(t.Lease.Host)
		err = CheckNear(t, here, measured, in.Sharer)
	}
	if err == nil {
		err = Record(ctx, g.seen, t)
	}
	if err != nil {
		g.refused(t, in.From, err)
		return nil, fmt.Errorf("task refused: %w", err)
	}
	return t, nil
}

// AdmitHandedOver opens a task a leaving neighbour, from, handed over
// with its zone, and applies the rules that hold for it: the lease and
// issue time, and seen before. Its target is not checked: the heir takes
// the zone. A task seen here because this peer passed it to that
// neighbour comes back (Passed): the neighbour is going, and without it
// the task would wait for the manager to re-issue its host.
func (g *Gate) AdmitHandedOver(ctx context.Context, env []byte, from peer.ID) (*task.Task, error) {
	t, err := g.open(env, from)
	if err != nil {
		return nil, err
	}
	err = CheckLease(t, time.Now())
	if err == nil {
		err = Record(ctx, g.seen, t)
	}
	if errors.Is(err, ErrSeen) && g.takeBack(t) {
		g.log.Debug("A task this peer passed on came back with a zone", "task", t.ID, "from", from)
		return t, nil
	}
	if err != nil {
		g.refused(t, from, err)
		return nil, err
	}
	return t, nil
}

// claim is this peer's claim on the lease of task t, aimed at target.
func (g *Gate) claim(t *task.Task, target can.Point) zonecert.Claim {
	return zonecert.Claim{Task: t.ID, Epoch: t.Lease.Epoch, Target: target, Issued: t.Issued, Pinned: t.Pinned, Claimer: g.self}
}

// Passed records that this peer passed admitted task t on to a neighbour
// (balanced or shared), so that t may come back once, until its lease
// ends (Forget).
func (g *Gate) Passed(t *task.Task) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.passed[Key(t)] = t.Lease.Expires.Add(MaxClockSkew)
}

// Forget drops the deliveries passed on whose lease has ended by now.
func (g *Gate) Forget(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, until := range g.passed {
		if now.After(until) {
			delete(g.passed, k)
		}
	}
}

// Counts returns the gate's counters.
func (g *Gate) Counts() Counts {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.counts
}

// takeBack reports whether t is a delivery this peer passed on, and
// forgets it: it comes back once.
func (g *Gate) takeBack(t *task.Task) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := Key(t)
	exp, ok := g.passed[k]
	if !ok {
		return false
	}
	delete(g.passed, k)
	if time.Now().After(exp) {
		return false
	}
	g.counts.Returned++
	return true
}

// open verifies env's signature and opens its task, counting and logging
// one that fails.
func (g *Gate) open(env []byte, from peer.ID) (*task.Task, error) {
	t, err := envelope.Open(env, g.manager)
	if err == nil {
		return t, nil
	}
	g.mu.Lock()
	g.counts.Invalid++
	g.mu.Unlock()
	kind := "invalid"
	for _, e := range []error{envelope.ErrUnsigned, envelope.ErrForged, envelope.ErrAltered} {
		if errors.Is(err, e) {
			kind = e.Error()
		}
	}
	g.log.Info("Refused a task that failed verification", "reason", kind, "from", from)
	return nil, err
}

// refused counts and logs a genuine task refused for err.
func (g *Gate) refused(t *task.Task, from peer.ID, err error) {
	g.mu.Lock()
	switch {
	case errors.Is(err, ErrNoLease):
		g.counts.Expired++
	case errors.Is(err, ErrIssuedAhead):
		g.counts.IssuedAhead++
	case errors.Is(err, ErrTargetMismatch):
		g.counts.Mistargeted++
	case errors.Is(err, ErrMisaimed):
		g.counts.Misaimed++
	case errors.Is(err, ErrSeen):
		g.counts.Replayed++
	}
	g.mu.Unlock()
	switch {
	case errors.Is(err, ErrTooFar):
		g.log.Debug("Refused a shared task whose host is nearer its sharer", "task", t.ID, "from", from, "err", err)
	case errors.Is(err, ErrIssuedAhead):
		g.log.Warn("Refused a task issued in the future: this computer's clock is probably behind; set it to the right time, for example by turning on automatic time",
			"task", t.ID, "issued", t.Issued, "now", time.Now(), "err", err)
	default:
		g.log.Info("Refused a task", "task", t.ID, "from", from, "err", err)
	}
}
