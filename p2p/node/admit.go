package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// MaxClockSkew is how far after this peer's clock a task's issue time may
// lie. A task issued later is refused: either this peer's clock is behind
// or the task is not what it claims.
const MaxClockSkew = 2 * time.Minute

// SeenSet remembers the tasks a peer has taken on, so that a genuine task
// replayed to it is refused. The client's bbolt task queue implements it;
// a Queue passed to New that does not gets a set in memory, which forgets
// on restart.
type SeenSet interface {
	// Seen records task id and reports whether it was recorded already,
	// in one atomic step that is durable when Seen returns. The record
	// may be forgotten after expires.
	Seen(ctx context.Context, id string, expires time.Time) (seen bool, err error)
}

// Admission: a second line of defence behind the host lease (design.md §8).
// The peer that would queue a task, or balance it onward as its target's
// owner, refuses a genuine, correctly signed task when
//   - it has no lease on its host, or the lease has ended (ErrNoLease), or
//     it was issued more than MaxClockSkew after now (ErrIssuedAhead);
//   - on the insert path, its signed target is missing, of another
//     dimension, or not the insert's target, both clamped
//     (ErrTargetMismatch): routing follows the signed point;
//   - a load-balanced insert does not carry the certificates of the peers
//     that passed it on from its target's owner to us (checkPath,
//     ErrMisaimed);
//   - it was shared here by a peer that measured its host less than half
//     as far as this peer did (nearEnough, ErrTooFar);
//   - it was seen here before (ErrSeen).
// A handed-over task is checked for its lease, issue time and seen before,
// not for its target: the heir takes the zone. Intermediate peers that
// only route an insert check nothing.
//
// Only a task that passes every other rule is recorded as seen, just
// before it is queued or balanced onward (a crash in between leaves it
// refused next time, never queued twice). Refusals are not recorded, or a
// member could fill a peer's set with misaimed copies of tasks that peer
// may later inherit in a handover.

// checkLease refuses a task that may not start at now.
func checkLease(t *task.Task, now time.Time) error {
	switch {
	case t.Lease.Host == "" || t.Lease.Expires.IsZero():
		return fmt.Errorf("%w: task %s carries no lease on its host", ErrNoLease, t.ID)
	case !now.Before(t.Lease.Expires):
		return fmt.Errorf("%w: the lease of task %s on %s ended at %s, %s ago", ErrNoLease, t.ID, t.Lease.Host,
			t.Lease.Expires.UTC().Format(time.RFC3339), now.Sub(t.Lease.Expires).Round(time.Second))
	case t.Issued.After(now.Add(MaxClockSkew)):
		return fmt.Errorf("%w: task %s was issued at %s, %s after this peer's clock", ErrIssuedAhead, t.ID,
			t.Issued.UTC().Format(time.RFC3339), t.Issued.Sub(now).Round(time.Second))
	}
	return nil
}

// checkTarget refuses a task whose signed target is not target (clamped):
// routing must follow the signed point, not the insert's unsigned copy.
func checkTarget(t *task.Task, target can.Point, dim int) error {
	switch {
	case len(t.Target) == 0:
		return fmt.Errorf("%w: task %s carries no target point", ErrTargetMismatch, t.ID)
	case len(t.Target) != dim:
		return fmt.Errorf("%w: the target of task %s has %d dimensions, the overlay %d", ErrTargetMismatch, t.ID, len(t.Target), dim)
	case !slices.Equal(can.Clamp(t.Target), target):
		return fmt.Errorf("%w: task %s is signed for %v, sent to %v", ErrTargetMismatch, t.ID, can.Clamp(t.Target), target)
	}
	return nil
}

// checkPath checks the certificates a load-balanced insert carries
// (wire.Insert.Path), received from peer from: each is signed by the
// manager, unexpired and not older than one this node has seen for its
// zone; the first holds target; each next one abuts the one before and
// names another holder; the last names from; none names this node. So a
// task reaches this node only by lighter neighbours passing it on from
// its target's owner, as load balancing on insert does (paper 002, TTL 3),
// however far from the owner: no peer can aim a task it saw at a peer of
// its choosing.
func (n *Node) checkPath(raw [][]byte, target can.Point, from peer.ID) ([]zonecert.Cert, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: no certificate of the target's owner", ErrMisaimed)
	}
	path := make([]zonecert.Cert, 0, len(raw))
	for _, b := range raw {
		c, err := zonecert.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMisaimed, err)
		}
		path = append(path, c)
	}
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	held := map[peer.ID]bool{n.h.ID(): true}
	for i, c := range path {
		if err := n.book.Accept(c, now); err != nil {
			return nil, fmt.Errorf("%w: certificate %d of the path: %v", ErrMisaimed, i, err)
		}
		z := c.Path.Zone(n.cfg.Dim)
		switch {
		case held[c.Holder]:
			return nil, fmt.Errorf("%w: %s appears twice in the path, or is this peer", ErrMisaimed, c.Holder)
		case i == 0 && !z.Contains(target):
			return nil, fmt.Errorf("%w: the owner's zone %v does not hold %v", ErrMisaimed, z, target)
		case i > 0 && !can.Abuts(path[i-1].Path.Zone(n.cfg.Dim), z):
			return nil, fmt.Errorf("%w: zones %d and %d of the path do not abut", ErrMisaimed, i-1, i)
		}
		held[c.Holder] = true
	}
	if last := path[len(path)-1].Holder; last != from {
		return nil, fmt.Errorf("%w: the path ends at %s, the insert came from %s", ErrMisaimed, last, from)
	}
	n.refreshLocked(now)
	return path, nil
}

// admit opens an insert's task where it would be queued or balanced onward
// and applies the admission rules; lbiFrom is the peer a load-balanced
// insert came from with its path of certificates and the proof that this
// node may claim the task, "" when target lies in our zones. A task
// admitted is recorded as seen.
func (n *Node) admit(ctx context.Context, env []byte, target can.Point, lbiFrom peer.ID, path [][]byte, proof []byte, sharerRTT time.Duration) (*task.Task, error) {
	t, err := envelope.Open(env, n.cfg.Manager)
	if err != nil {
		n.mu.Lock()
		n.stats.Refused++
		n.mu.Unlock()
		kind := "invalid"
		for _, e := range []error{envelope.ErrUnsigned, envelope.ErrForged, envelope.ErrAltered} {
			if errors.Is(err, e) {
				kind = e.Error()
			}
		}
		n.log.Info("Refused a task that failed verification", "reason", kind)
		return nil, fmt.Errorf("task refused: %w", err)
	}
	err = checkLease(t, time.Now())
	if err == nil {
		err = checkTarget(t, target, n.cfg.Dim)
	}
	if err == nil && lbiFrom != "" {
		if _, perr := n.checkPath(path, target, lbiFrom); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		} else if perr := n.checkProof(proof, t, target); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		}
	}
	if err == nil {
		err = n.nearEnough(t, sharerRTT)
	}
	if err == nil {
		err = n.record(ctx, t)
	}
	if err != nil {
		n.refused(t, lbiFrom, err)
		return nil, fmt.Errorf("task refused: %w", err)
	}
	return t, nil
}

// admitHandedOver applies the admission rules that hold for a task a
// leaving neighbour hands over with its zone: the lease and issue time,
// and seen before. Its target is not checked: the heir takes the zone.
// A task seen here because this node balanced or shared it to that
// neighbour comes back: the neighbour is going, and without it the task
// would wait for the manager to re-issue its host.
func (n *Node) admitHandedOver(ctx context.Context, t *task.Task, from peer.ID) error {
	err := checkLease(t, time.Now())
	if err == nil {
		err = n.record(ctx, t)
	}
	if errors.Is(err, ErrSeen) && n.takeBack(t) {
		n.log.Debug("A task this peer passed on came back with a zone", "task", t.ID, "from", from)
		return nil
	}
	if err != nil {
		n.refused(t, from, err)
	}
	return err
}

// noteLeft records that this node passed admitted task t on to a
// neighbour (balanced or shared), so that t may come back once. Heartbeat
// rounds forget it when its lease has ended.
func (n *Node) noteLeft(t *task.Task) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.left[seenKey(t)] = t.Lease.Expires.Add(MaxClockSkew)
}

// takeBack reports whether t is a delivery this node passed on, and
// forgets it: it comes back once.
func (n *Node) takeBack(t *task.Task) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := seenKey(t)
	exp, ok := n.left[k]
	if !ok {
		return false
	}
	delete(n.left, k)
	if time.Now().After(exp) {
		return false
	}
	n.stats.Returned++
	return true
}

// record records t's delivery as seen here, refusing it if it was
// already.
func (n *Node) record(ctx context.Context, t *task.Task) error {
	// The margin keeps the record while a clock stepped back could still
	// take the task's lease for live.
	seen, err := n.seen.Seen(ctx, seenKey(t), t.Lease.Expires.Add(MaxClockSkew))
	switch {
	case err != nil:
		return fmt.Errorf("record task %s as seen: %w", t.ID, err)
	case seen:
		return fmt.Errorf("%w: task %s", ErrSeen, t.ID)
	}
	return nil
}

// seenKey names one delivery of t: its ID under one lease epoch. A replay
// of the envelope is the same delivery and is refused. A task the manager
// sends again after a refusal (a full queue, a peer leaving) comes under
// the host's next lease, so it is a new delivery, and a peer that took and
// then refused the first one does not refuse it for ever. The earlier
// epoch's copy, wherever it is, can no longer claim the host's lease.
func seenKey(t *task.Task) string {
	return t.ID + "@" + strconv.FormatUint(t.Lease.Epoch, 10)
}

// refused counts and logs a genuine task refused for err.
func (n *Node) refused(t *task.Task, from peer.ID, err error) {
	n.mu.Lock()
	switch {
	case errors.Is(err, ErrNoLease):
		n.stats.Expired++
	case errors.Is(err, ErrIssuedAhead):
		n.stats.IssuedAhead++
	case errors.Is(err, ErrTargetMismatch):
		n.stats.Mistargeted++
	case errors.Is(err, ErrMisaimed):
		n.stats.Misaimed++
	case errors.Is(err, ErrSeen):
		n.stats.Replayed++
	}
	n.mu.Unlock()
	switch {
	case errors.Is(err, ErrTooFar):
		n.log.Debug("Refused a shared task whose host is nearer its sharer", "task", t.ID, "from", from, "err", err)
	case errors.Is(err, ErrIssuedAhead):
		n.log.Warn("Refused a task issued in the future: this computer's clock is probably behind; set it to the right time, for example by turning on automatic time",
			"task", t.ID, "issued", t.Issued, "now", time.Now(), "err", err)
	default:
		n.log.Info("Refused a task", "task", t.ID, "from", from, "err", err)
	}
}

// refusalError is an insert refused by a peer: its message, wrapping the
// reason's sentinel when the message names one.
type refusalError struct {
	msg    string
	reason error
}

func (e *refusalError) Error() string { return "insert: " + e.msg }
func (e *refusalError) Unwrap() error { return e.reason }

// refusal turns a refusal message from the overlay back into an error
// that errors.Is matches against the admission sentinels.
func refusal(msg string) error {
	e := &refusalError{msg: msg}
	for _, r := range []error{ErrNoLease, ErrIssuedAhead, ErrTargetMismatch, ErrMisaimed, ErrSeen, ErrLeaving, ErrNoIdleThread, ErrTooFar} {
		if strings.Contains(msg, r.Error()) {
			e.reason = r
			break
		}
	}
	return e
}

// memSeen is the SeenSet of a node whose queue keeps none: it forgets on
// restart.
type memSeen struct {
	mu     sync.Mutex           // guards the fields below
	ids    map[string]time.Time // task ID → when the record may go
	pruned time.Time
}

func newMemSeen() *memSeen { return &memSeen{ids: map[string]time.Time{}} }

func (m *memSeen) Seen(_ context.Context, id string, expires time.Time) (bool, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.pruned) > time.Minute {
		for k, until := range m.ids {
			if now.After(until) {
				delete(m.ids, k)
			}
		}
		m.pruned = now
	}
	until, ok := m.ids[id]
	if !ok || expires.After(until) {
		m.ids[id] = expires
	}
	return ok, nil
}
