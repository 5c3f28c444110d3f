package storage

import (
	"errors"
	"fmt"
	"slices"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// The index's side of validation: pending checks and their rounds, peer
// records, verdicts, and settling a result in one transaction (its
// receipt and its checkers' signed again, deferred check credit, the
// pages of a failed or untold result out of the index).

// peerRecord returns peer's validation record (zero for a new peer).
func (x *index) peerRecord(peer string) (PeerRecord, error) {
	r, _, err := getOne[PeerRecord](x, bucketRecords, []byte(peer))
	return r, err
}

// pendingChecks returns every result waiting for its verdict.
func (x *index) pendingChecks() ([]checkRec, error) {
	return getAll[checkRec](x, bucketChecks, "pending check")
}

// pendingCheck returns the pending check of the result of task id.
func (x *index) pendingCheck(id string) (checkRec, bool, error) {
	return getOne[checkRec](x, bucketChecks, []byte(id))
}

// verdict returns the verdict on the result of task id.
func (x *index) verdict(id string) (Verdict, bool, error) {
	return getOne[Verdict](x, bucketVerdicts, []byte(id))
}

// verdicts returns every verdict.
func (x *index) verdicts() ([]Verdict, error) {
	return getAll[Verdict](x, bucketVerdicts, "verdict")
}

// addRound records a check task issued for the result of task checked.
func (x *index) addRound(checked string, r checkRound) error {
	return x.db.Update(func(tx kv.Tx) error {
		b := tx.Bucket(bucketChecks)
		var c checkRec
		found, err := getJSON(b, []byte(checked), &c)
		if err != nil || !found {
			return err
		}
		c.Rounds = append(c.Rounds, r)
		return putJSON(b, []byte(checked), c)
	})
}

// errNotAwaited: the result was settled, or dropped the check round, while
// the check's pages were compared.
var errNotAwaited = errors.New("the result no longer waits for this check")

// recordRound stores a check round's outcome, its fetches of pages not as
// uploaded, the sample's pages found forged and varying so far, and the
// checker's pending receipt r; fetches are the pages the checker
// re-fetched.
func (x *index) recordRound(checked string, round checkRound, forged, varies []int, r task.Receipt, raw []byte, fetches int) error {
	return x.db.Update(func(tx kv.Tx) error {
		b := tx.Bucket(bucketChecks)
		var c checkRec
		found, err := getJSON(b, []byte(checked), &c)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(c.Rounds, func(r checkRound) bool { return r.Task == round.Task })
		if !found || i < 0 {
			return fmt.Errorf("record check %s of task %s: %w", round.Task, checked, errNotAwaited)
		}
		c.Rounds[i] = round
		c.Forged, c.Varies = forged, varies
		if err := putJSON(b, []byte(checked), c); err != nil {
			return err
		}
		for p, f := range round.fetches {
			if err := putJSON(tx.Bucket(bucketFetches), fetchKey(checked, p, round.Task), f); err != nil {
				return err
			}
		}
		if err := putJSON(tx.Bucket(bucketReceipts), []byte(r.TaskID), stored{Peer: r.Peer, Raw: raw}); err != nil {
			return err
		}
		if err := updateContributor(tx, r.Peer, func(ct *Contributor) {
			ct.Receipts++
			ct.Credits += r.Credits
			ct.Pending += r.Credits
			ct.Last = r.IssuedAt
		}); err != nil {
			return err
		}
		return x.addTotalsTx(tx, func(t *Totals) {
			t.CheckFetches += int64(fetches)
			if c.Recorded {
				t.RecordedCheckFetches += int64(fetches)
			}
		})
	})
}

// settle applies verdict v on pending result c in one transaction: the
// result's receipt and its checkers' are signed again as confirmed or
// revoked, the peers' records and credit follow, the pages of an invalid
// or untold result leave the index and its WARC records go into
// v.Records. It returns the checked peer's failures so far.
func (x *index) settle(c checkRec, v *Verdict, key crypto.PrivKey, pub crypto.PubKey) (failures int, err error) {
	valid := v.Verdict == VerdictValid
	err = x.db.Update(func(tx kv.Tx) error {
		state := task.CreditConfirmed
		reason := v.Reason
		if !valid || v.Untold {
			state = task.CreditRevoked
		}
		if err := resignTx(tx, c.Task, state, reason, key, pub); err != nil {
			return err
		}
		if err := updateRecord(tx, c.Peer, func(r *PeerRecord) {
			switch {
			case v.Untold: // neither for nor against it
			case valid:
				r.Valid++
				r.Streak++
			default:
				r.Invalid++
				r.Streak = 0
			}
			failures = r.Invalid
		}); err != nil {
			return err
		}
		if !v.Untold {
			if err := settleDeferredTx(tx, c.Peer, valid, key, pub); err != nil {
				return err
			}
		}
		for _, rd := range c.Rounds {
			if rd.Peer == "" {
				continue
			}
			// rd.Outcome is what the round counted for (decide): a page
			// found not as uploaded that no other checker corroborated
			// is contradicted by a valid verdict, unless no round could
			// tell.
			var agree bool
			switch {
			case v.Untold:
				agree = true
			case valid:
				agree = rd.Outcome != outcomeMismatch && rd.Outcome != outcomeUnconfirmed
			default:
				agree = rd.Outcome != outcomeMatch
			}
			st, why := task.CreditConfirmed, "the spot-check agreed with the verdict"
			var checker PeerRecord
			if _, err := getJSON(tx.Bucket(bucketRecords), []byte(rd.Peer), &checker); err != nil {
				return err
			}
			switch {
			case agree && checker.Invalid > 0:
				// A peer whose own results failed earns nothing for
				// checks: its "not there" may be as made up as its pages.
				st, why = task.CreditRevoked, "results of this peer failed validation"
			case agree && !checker.Trusted():
				// A checker without a record is paid once a result of its
				// own passes: a check that found a result false is as
				// easily forged as a result, and a cheater that checks
				// others honestly while forging its own results would
				// otherwise keep the checks' credit when caught.
				if err := deferTx(tx, rd.Peer, rd.Task); err != nil {
					return err
				}
				continue
			case !agree:
				st, why = task.CreditRevoked, "the spot-check was contradicted by the others"
				if err := updateRecord(tx, rd.Peer, func(r *PeerRecord) { r.BadChecks++; r.Streak = 0 }); err != nil {
					return err
				}
			}
			if err := resignTx(tx, rd.Task, st, why, key, pub); err != nil {
				return err
			}
		}
		if !valid || v.Untold {
			// Pages no check could confirm leave the index with those
			// found false: a peer without a record could otherwise make up
			// pages a checker cannot fetch, or that change on every fetch,
			// and have them served for nothing.
			var w written
			if _, err := getJSON(tx.Bucket(bucketWritten), []byte(c.Task), &w); err != nil {
				return err
			}
			v.Records = w.Records
			urls := tx.Bucket(bucketURLs)
			for _, u := range w.URLs {
				var e Entry
				found, err := getJSON(urls, []byte(u), &e)
				if err != nil {
					return err
				}
				if found && e.Task == c.Task {
					if err := urls.Delete([]byte(u)); err != nil {
						return err
					}
				}
			}
		}
		if err := tx.Bucket(bucketChecks).Delete([]byte(c.Task)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketWritten).Delete([]byte(c.Task)); err != nil {
			return err
		}
		if err := deleteFetchesTx(tx, c.Task); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bucketVerdicts), []byte(c.Task), v); err != nil {
			return err
		}
		return x.addTotalsTx(tx, func(t *Totals) {
			switch {
			case v.Untold:
				t.Untold++
				t.Quarantined += int64(len(v.Records))
			case valid:
				t.Passed++
			default:
				t.Failed++
				t.Quarantined += int64(len(v.Records))
			}
		})
	})
	return failures, err
}

// resignTx signs the stored receipt of task id again with a settled
// credit state, and moves its credit out of its peer's pending total.
func resignTx(tx kv.Tx, id, state, reason string, key crypto.PrivKey, pub crypto.PubKey) error {
	b := tx.Bucket(bucketReceipts)
	var st stored
	found, err := getJSON(b, []byte(id), &st)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("settle receipt of task %s: none stored", id)
	}
	r, err := upload.VerifyReceipt(st.Raw, pub)
	if err != nil {
		return fmt.Errorf("settle receipt of task %s: %w", id, err)
	}
	if r.State != task.CreditPending {
		return nil
	}
	r.State, r.Reason = state, reason
	raw, err := upload.SignReceipt(r, key)
	if err != nil {
		return err
	}
	if err := putJSON(b, []byte(id), stored{Peer: st.Peer, Raw: raw}); err != nil {
		return err
	}
	return updateContributor(tx, r.Peer, func(c *Contributor) {
		c.Pending -= r.Credits
		if state == task.CreditRevoked {
			c.Credits -= r.Credits
			c.Revoked += r.Credits
		}
	})
}

// deferTx keeps check task id's receipt pending until peer's next
// verdict.
func deferTx(tx kv.Tx, peer, id string) error {
	return updateTx(tx, bucketDeferred, peer, func(ids *[]string) { *ids = append(*ids, id) })
}

// settleDeferredTx settles peer's deferred check receipts with the verdict
// on one of its own results: confirmed once it is trusted, revoked when
// its result failed.
func settleDeferredTx(tx kv.Tx, peer string, valid bool, key crypto.PrivKey, pub crypto.PubKey) error {
	b := tx.Bucket(bucketDeferred)
	var ids []string
	found, err := getJSON(b, []byte(peer), &ids)
	if err != nil || !found {
		return err
	}
	var rec PeerRecord
	if _, err := getJSON(tx.Bucket(bucketRecords), []byte(peer), &rec); err != nil {
		return err
	}
	st, why := task.CreditConfirmed, "the spot-check agreed with the verdict, and the checker's own results passed"
	switch {
	case !valid:
		st, why = task.CreditRevoked, "results of this peer failed validation"
	case rec.Valid == 0 || rec.Invalid > 0:
		// Waits for a result of its own to pass. A contradicted check
		// (BadChecks) does not keep it waiting for ever: it was judged
		// and paid for on its own.
		return nil
	}
	for _, id := range ids {
		if err := resignTx(tx, id, st, why, key, pub); err != nil {
			return err
		}
	}
	return b.Delete([]byte(peer))
}
