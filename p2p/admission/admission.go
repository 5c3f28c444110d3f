package admission

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// MaxClockSkew is how far after a peer's clock a task's issue time may
// lie. A task issued later is refused: either the peer's clock is behind
// or the task is not what it claims.
const MaxClockSkew = 2 * time.Minute

// Reach is how many times as far from a shared task's host as its sharer
// a taker may be (CheckNear). The sharer holds the task because the
// manager measured it nearest the host, or a neighbour balancing load
// passed it on; sharing may at most double the round trip a host is
// crawled at, where it trades a crawl thread idle now against every page
// of the host fetched from farther. Which host is large is not known
// before its first crawl: in the default demo, the 284-page host 128 ms
// from its nearest member went to an idle volunteer 308 ms away in 4 of
// 10 runs, which took the crawls' round trip from about 0.45 to 0.66 of
// a random volunteer's.
const Reach = 2

// Reasons a peer refuses a genuine, correctly signed task. Their text
// travels in insert refusals; Refusal wraps the one a refusal names.
var (
	// ErrNoLease: the task carries no lease on its host, or the lease has
	// ended. A task not started before its lease ends is never started.
	ErrNoLease = errors.New("task has no live lease")
	// ErrIssuedAhead: the task was issued more than MaxClockSkew after
	// this peer's clock. The manager's clock is the reference, so this
	// peer's clock is probably behind.
	ErrIssuedAhead = errors.New("task issued in the future")
	// ErrTargetMismatch: the task's signed target point is missing, of
	// another dimension than the overlay's, or not the point the insert
	// was routed to.
	ErrTargetMismatch = errors.New("task not sent to its signed target")
	// ErrMisaimed: a load-balanced or shared insert whose path of
	// certificates does not lead from the target's owner to this peer
	// through abutting zones, or whose proof does not let this peer claim
	// the task.
	ErrMisaimed = errors.New("load-balanced task not from its target's owner")
	// ErrSeen: this peer has taken the task under this lease before
	// (queued it, balanced it to a neighbour, or received it in a
	// handover).
	ErrSeen = errors.New("task seen before")
	// ErrTooFar: a shared task whose host this peer measured more than
	// Reach times as far as the sharer did. The sharer keeps the task and
	// offers it elsewhere.
	ErrTooFar = errors.New("host too far for a shared task")
	// ErrNotHeir: a handover from a peer that shows no zone of its the
	// manager has since certified to this peer.
	ErrNotHeir = errors.New("the sender shows no zone of its that the manager has since certified to this peer")
)

// CheckLease refuses a task that may not start at now.
func CheckLease(t *task.Task, now time.Time) error {
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

// CheckTarget refuses a task whose signed target is not target (clamped)
// in a space of dim dimensions: routing must follow the signed point, not
// the insert's unsigned copy.
func CheckTarget(t *task.Task, target can.Point, dim int) error {
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

// CheckPath checks the certificates a load-balanced insert carries
// (wire.Insert.Path), received by peer self from peer from, and accepts
// them into book: each is signed by the manager, unexpired at now and not
// older than one the book holds for its zone; the first holds target; each
// next one abuts the one before and names another holder; the last names
// from; none names self. So a task reaches a peer only by lighter
// neighbours passing it on from its target's owner, as load balancing on
// insert does (paper 002, TTL 3), however far from the owner: no peer can
// aim a task it saw at a peer of its choosing. The caller guards book.
func CheckPath(book *zonecert.Book, raw [][]byte, target can.Point, dim int, self, from peer.ID, now time.Time) error {
	if len(raw) == 0 {
		return fmt.Errorf("%w: no certificate of the target's owner", ErrMisaimed)
	}
	path := make([]zonecert.Cert, 0, len(raw))
	for _, b := range raw {
		c, err := zonecert.Decode(b)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMisaimed, err)
		}
		path = append(path, c)
	}
	held := map[peer.ID]bool{self: true}
	for i, c := range path {
		if err := book.Accept(c, now); err != nil {
			return fmt.Errorf("%w: certificate %d of the path: %v", ErrMisaimed, i, err)
		}
		z := c.Path.Zone(dim)
		switch {
		case held[c.Holder]:
			return fmt.Errorf("%w: %s appears twice in the path, or is this peer", ErrMisaimed, c.Holder)
		case i == 0 && !z.Contains(target):
			return fmt.Errorf("%w: the owner's zone %v does not hold %v", ErrMisaimed, z, target)
		case i > 0 && !can.Abuts(path[i-1].Path.Zone(dim), z):
			return fmt.Errorf("%w: zones %d and %d of the path do not abut", ErrMisaimed, i-1, i)
		}
		held[c.Holder] = true
	}
	if last := path[len(path)-1].Holder; last != from {
		return fmt.Errorf("%w: the path ends at %s, the insert came from %s", ErrMisaimed, last, from)
	}
	return nil
}

// ExtendPath returns the path of certificates a peer passes a balanced
// insert on with, so that the next peer's CheckPath accepts it: raw, the
// path the insert came with (nil at the target's owner), and one of own,
// the peer's certificates, holding target at the owner, else abutting the
// zone of the path's last certificate, and abutting one of next, the
// zones of the peer it goes to. ok is false when own holds no such zone
// (the peer's zones changed meanwhile).
func ExtendPath(raw [][]byte, own []zonecert.Cert, target can.Point, next []can.Zone, dim int) ([][]byte, bool) {
	var last can.Zone
	if len(raw) > 0 {
		c, err := zonecert.Decode(raw[len(raw)-1])
		if err != nil {
			return nil, false
		}
		last = c.Path.Zone(dim)
	}
	for _, c := range own {
		z := c.Path.Zone(dim)
		if len(raw) == 0 && !z.Contains(target) || len(raw) > 0 && !can.Abuts(last, z) || !can.AbutsAny([]can.Zone{z}, next) {
			continue
		}
		b, err := c.MarshalBinary()
		if err != nil {
			return nil, false
		}
		return append(slices.Clone(raw), b), true
	}
	return nil, false
}

// CheckHandover checks that peer from, leaving, may hand its tasks to the
// holder of own (this peer's certificates): one of sent, from's
// certificates signed by manager (expired or not), names a zone that own
// certifies here under a newer epoch, as the manager's grant of a
// leaver's zones to their heir does. Anyone else's tasks are refused
// whole (ErrNotHeir).
func CheckHandover(sent []zonecert.Cert, from peer.ID, own []zonecert.Cert, manager crypto.PubKey) error {
	for _, c := range sent {
		if c.Holder != from || c.Verify(manager) != nil {
			continue
		}
		for _, o := range own {
			if o.Epoch > c.Epoch && o.Path.Overlaps(c.Path) {
				return nil
			}
		}
	}
	return ErrNotHeir
}

// CheckProof checks that raw, an encoded zonecert.Proof, shows that
// claim's claimer may claim the lease of claim's task, by manager's
// certificates; the error wraps ErrMisaimed.
func CheckProof(raw []byte, manager crypto.PubKey, claim zonecert.Claim) error {
	p, err := zonecert.DecodeProof(raw)
	if err == nil {
		err = p.Verify(manager, claim)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMisaimed, err)
	}
	return nil
}

// CheckNear refuses shared task t (ErrTooFar) when here, this peer's own
// measured round trip to its host, is more than Reach times sharer, the
// round trip its sharer says it measured (0 when the task was not shared,
// or the sharer has not measured the host). A host not measured here
// (measured false) is taken. A sharer that understates its round trip
// only keeps its own task.
func CheckNear(t *task.Task, here time.Duration, measured bool, sharer time.Duration) error {
	if sharer <= 0 || !measured || here <= Reach*sharer {
		return nil
	}
	return fmt.Errorf("%w: task %s: %v from here, %v from its sharer", ErrTooFar, t.ID, here.Round(time.Millisecond), sharer.Round(time.Millisecond))
}

// refusalError is an insert refused by a peer: its message, wrapping the
// reason's sentinel when the message names one.
type refusalError struct {
	msg    string
	reason error
}

func (e *refusalError) Error() string { return "insert: " + e.msg }
func (e *refusalError) Unwrap() error { return e.reason }

// Refusal turns a refusal message from the overlay back into an error
// that errors.Is matches against the reasons above and, besides them,
// others (the refuser's own, such as that it is leaving).
func Refusal(msg string, others ...error) error {
	e := &refusalError{msg: msg}
	for _, r := range append([]error{ErrNoLease, ErrIssuedAhead, ErrTargetMismatch, ErrMisaimed, ErrSeen, ErrTooFar}, others...) {
		if strings.Contains(msg, r.Error()) {
			e.reason = r
			break
		}
	}
	return e
}
