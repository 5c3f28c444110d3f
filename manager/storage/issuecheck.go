package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// Issuing spot-checks: the pages of a result a check re-fetches
// (chooseCheck, sized by sample.go), the check tasks issued for them each
// tick, and the rounds whose task was lost. validate.go holds the rules
// and the verdict, judge.go the comparison of a check's pages.

// chooseCheck returns the sample of a result of peer to re-fetch, and
// whether the peer has a record. The pages fetched whole and those
// reported unchanged are drawn apart, each kind uniformly and with its own
// bound: a result with one page in ten forged has one page in ten forged
// in one kind at least, and the bound holds on each kind's credit too, so
// forging the pages that earn most (fetched ones, among many unchanged)
// pays no better than forging any.
func (s *Storage) chooseCheck(peer string, pages []sampled) (sample []sampled, recorded bool, err error) {
	v := s.opts.Validation
	if v == nil || len(pages) == 0 {
		return nil, false, nil
	}
	rec, err := s.idx.peerRecord(peer)
	if err != nil {
		return nil, false, err
	}
	recorded = rec.Streak >= v.NewPeer
	var fetched, unchanged []sampled
	for _, p := range pages {
		if p.Unchanged {
			unchanged = append(unchanged, p)
		} else {
			fetched = append(fetched, p)
		}
	}
	sample = samplePages(fetched, v.sampleSize(len(fetched), recorded), v.Rand)
	sample = append(slices.Clip(sample), samplePages(unchanged, v.sampleSize(len(unchanged), recorded), v.Rand)...)
	return sample, recorded, nil
}

// IssueChecks issues the spot-checks results wait for: a first one, the
// next one after a round that did not decide, or a new one for a check
// task that was lost. The manager calls it every tick.
func (s *Storage) IssueChecks(ctx context.Context) error {
	v := s.opts.Validation
	if v == nil {
		return nil
	}
	recs, err := s.idx.pendingChecks()
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range recs {
		if n := len(c.Rounds); n > 0 && c.Rounds[n-1].Outcome == "" {
			t, err := s.opts.Tasks.Task(c.Rounds[n-1].Task)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if t.State == channels.TaskOpen || t.State == channels.TaskDone {
				continue // running, or its result is being judged
			}
			if err := s.loseRound(c.Task, t.ID, !t.Misrouted); err != nil {
				errs = append(errs, err)
			}
			continue // issued again at the next call
		}
		avoid := []string{c.Peer}
		for _, r := range c.Rounds {
			if r.Peer != "" {
				avoid = append(avoid, r.Peer)
			}
		}
		urls := c.nextURLs()
		if len(urls) == 0 {
			// Every page changes on every fetch: no round can tell more.
			s.mu.Lock()
			_, err := s.decide(c.Task, false)
			s.mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		id, err := v.Checks.IssueCheck(ctx, c.Task, urls, avoid)
		if err != nil {
			errs = append(errs, fmt.Errorf("check result of task %s: %w", c.Task, err))
			continue
		}
		if err := s.idx.addRound(c.Task, checkRound{Task: id}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// loseRound drops a check round whose task was lost; after MaxLost such
// losses (counted unless the overlay delivered the check to a peer that
// had to avoid it, which the manager refused), the result goes through
// unchecked.
func (s *Storage) loseRound(checked, checkTask string, counts bool) error {
	v := s.opts.Validation
	var settle bool
	err := s.idx.db.Update(func(tx kv.Tx) error {
		var c checkRec
		found, err := getJSON(tx.Bucket(bucketChecks), []byte(checked), &c)
		if err != nil || !found {
			return err
		}
		c.Rounds = slices.DeleteFunc(c.Rounds, func(r checkRound) bool { return r.Task == checkTask })
		if counts {
			c.Lost++
		}
		settle = c.Lost >= v.MaxLost
		return putJSON(tx.Bucket(bucketChecks), []byte(checked), c)
	})
	if err != nil || !settle {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.decide(checked, true)
	return err
}
