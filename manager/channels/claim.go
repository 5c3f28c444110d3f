package channels

import (
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Claim gives task id's lease of the given epoch to peer, the crawler about
// to start it, until now+Hold. The holder itself may claim again (after a
// restart); another peer only when the lease is unclaimed, released (and
// the politeness wait has passed since) or lapsed, and only before the
// task's StartBy. ErrLeaseHeld: try later; ErrLeaseOver: drop the task.
func (d *DB) Claim(id string, epoch uint64, peer string, now time.Time, lt LeaseTimes) (Task, error) {
	return d.ClaimFrom(id, epoch, peer, nil, now, lt)
}

// ClaimFrom is Claim with the addresses the crawler resolved its host to.
// A new holder's claim is held (ErrLeaseHeld) while the host's address or
// registrable domain has lt.Limits' cap of leases running, or the IP wait
// has not passed since the last one on it started or ended.
func (d *DB) ClaimFrom(id string, epoch uint64, peer string, addrs []string, now time.Time, lt LeaseTimes) (Task, error) {
	if len(addrs) > 0 {
		// Recorded whether the claim is granted or held: a held claim's
		// address and domain count too.
		if err := d.report(id, epoch, peer, addrs, now); err != nil {
			return Task{}, err
		}
	}
	var misrouted bool
	t, err := d.leaseOp(id, "claim", func(tx kv.Tx, t *Task) error {
		if err := leaseOptedOut(tx, t.Host); err != nil {
			return err
		}
		if t.State == TaskOpen && slices.Contains(t.Avoid, peer) {
			// The overlay delivered a spot-check to the crawler it checks
			// (zones moved under the manager's view). Refused here,
			// whatever the overlay did: the check ends as misrouted, the
			// host's lease with it, and the check is issued again.
			misrouted = true
			return misrouteTx(tx, t, now)
		}
		if err := current(t, epoch); err != nil {
			return err
		}
		if err := holdsHost(tx, t); err != nil {
			return err
		}
		var hl hostLease
		if t.Host != "" {
			if _, err := getJSON(tx.Bucket(bucketHosts), []byte(t.Host), &hl); err != nil {
				return err
			}
		}
		// The wait between the holder's last request and the heir's
		// first: the operator's, or the longer one the host asked for,
		// of its last crawler (as results reported it) or of the holder
		// that released the task (which may not have read it, stopped as
		// robots.txt came).
		gap := max(lt.Gap, hl.Wait, t.ReleaseWait)
		switch {
		case t.Holder == peer:
		case t.Holder != "" && !t.Released && now.Before(t.Expires.Add(lt.Skew+gap)):
			return ErrLeaseHeld // held, or lapsed under the politeness wait
		case t.Released && now.Before(t.ReleasedAt.Add(gap)):
			// The holder that handed the task over stopped just now: its
			// heir's first request keeps the wait after its last.
			return &HeldError{
				Why:     fmt.Sprintf("released %v ago, under the politeness wait", now.Sub(t.ReleasedAt).Round(time.Millisecond)),
				RetryIn: t.ReleasedAt.Add(gap).Sub(now),
			}
		case !now.Before(t.StartBy):
			return fmt.Errorf("%w: not started before %s", ErrLeaseOver, t.StartBy.UTC().Format(time.RFC3339))
		}
		if t.Holder != peer && hl.lapsedPeer(now) == peer {
			return fmt.Errorf("%w: %s let this host's lease lapse at %s and is not granted it again before %s", ErrLeaseOver,
				peer, hl.LapsedAt.UTC().Format(time.RFC3339), hl.LapsedAt.Add(LapseMemory).UTC().Format(time.RFC3339))
		}
		if t.Holder != peer && t.Host != "" && lt.Limits.active() {
			why, retryIn, err := limitsTx(tx, t, hl.addrsOf(now), now, lt, running(now, lt.Skew), true)
			if err != nil {
				return err
			}
			if why != "" {
				return &HeldError{Why: why, RetryIn: retryIn}
			}
		}
		if t.HoldUntil.IsZero() {
			t.HoldUntil = now.Add(holdFor(t, &hl, lt))
		}
		if !now.Before(t.HoldUntil) {
			return fmt.Errorf("%w: held for all its task can need, until %s", ErrLeaseOver, t.HoldUntil.UTC().Format(time.RFC3339))
		}
		if t.Holder != peer || t.Released {
			// A new holder (or the heir of a handover) starts moving
			// now, its pages counted afresh; the holder claiming again
			// after a restart does not.
			t.MovedAt, t.Pages = now, 0
		}
		// Requests count from the crawler's start: a restart counts
		// again from 0.
		t.Requests = 0
		// A claim proves the task was delivered, whatever its send was
		// told: it is not sent again.
		t.Holder, t.Released, t.ReleasedAt, t.ReleaseWait, t.Expires, t.Sent, t.Sending = peer, false, time.Time{}, 0, earliest(now.Add(lt.Hold), t.HoldUntil), true, false
		return nil
	})
	if err == nil && misrouted {
		return Task{}, fmt.Errorf("claim the lease of task %s: %w: %s may not run a spot-check of its own result", id, ErrLeaseOver, peer)
	}
	return t, err
}

// ReasonMisrouted is the Reason of a spot-check refused to a peer it had
// to avoid.
const ReasonMisrouted = "misrouted"

// misrouteTx ends open spot-check t as misrouted at now, its host's
// lease with it; the storage module issues the check again.
func misrouteTx(tx kv.Tx, t *Task, now time.Time) error {
	t.State, t.Reason, t.Misrouted, t.Finished, t.Envelope, t.Spec = TaskCancelled, ReasonMisrouted, true, now, nil, nil
	return endLeaseTx(tx, t, now)
}

// Misroute ends open spot-check id of epoch as misrouted, refusing the
// claim of a peer the manager does not let run it (one linked to the
// result it checks), as Claim does for a peer in its Avoid. A task that
// is no open check of epoch is left as it is.
func (d *DB) Misroute(id string, epoch uint64, now time.Time) error {
	_, err := d.leaseOp(id, "refuse", func(tx kv.Tx, t *Task) error {
		if t.Checks == "" || t.State != TaskOpen || t.Epoch != epoch {
			return nil
		}
		return misrouteTx(tx, t, now)
	})
	return err
}
