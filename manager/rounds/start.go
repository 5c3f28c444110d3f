package rounds

import (
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/task"
)

// StartRounds issues a round for every due channel that mine accepts (a
// manager sharing its database with others starts its own share). It
// reads the channels that can be due by the groups' shortest intervals,
// not every channel.
func (s *Schedule) StartRounds(now time.Time, mine func(channel string) bool) error {
	all, err := s.db.Due(s.dueBounds(), now, mine)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range all {
		iv, ok := s.Interval(c.Index)
		if !ok || !Due(c, iv, now) {
			continue
		}
		err := s.startRound(c, iv, now)
		if errors.Is(err, channels.ErrIssued) {
			s.log.Debug("Round issued by another manager", "channel", c.ID)
			continue
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Due says whether channel c, with recrawl interval iv, starts a round at
// now: when none of its rounds is under way, it is not removed, and either
// its user asked for a crawl or it is not paused and the interval passed.
func Due(c channels.Channel, iv time.Duration, now time.Time) bool {
	switch {
	case c.Pending > 0 || c.Removed():
		return false
	case c.CrawlSoon:
		return true
	case c.Paused:
		return false
	}
	return c.LastSubmit.IsZero() || now.Sub(c.LastSubmit) >= iv
}

// NextCrawl returns when channel c's next round is due and its recrawl
// interval: a round starts once the last one has no task pending and the
// interval has passed since it was submitted. A channel never submitted
// is due at once. ok is false while the strategy does not know c yet (it
// was added since the last Sync).
func (s *Schedule) NextCrawl(c channels.Channel) (next time.Time, interval time.Duration, ok bool) {
	iv, ok := s.Interval(c.Index)
	if !ok {
		return time.Time{}, 0, false
	}
	if c.LastSubmit.IsZero() {
		return c.Added, iv, true
	}
	return c.LastSubmit.Add(iv), iv, true
}

// startRound stores the tasks of channel c's next round, to be signed as
// they are sent.
func (s *Schedule) startRound(c channels.Channel, iv time.Duration, now time.Time) error {
	var ps []pieces.Piece
	if c.ExpectedPages >= s.opts.PieceAbove {
		ps = pieces.Split(c.Dirs, s.opts.Pieces, 0)
	}
	if len(ps) != len(c.Pieces) {
		if err := s.db.Update(c.ID, func(ch *channels.Channel) error { ch.Pieces = ps; return nil }); err != nil {
			return err
		}
	}
	c.Pieces = ps
	round := c.Round + 1
	tasks := c.Tasks(round, s.db.Plan())
	recs := make([]channels.Task, 0, len(tasks))
	for _, t := range tasks {
		t.Interval = task.Duration(iv)
		t.Issued = now
		t.Delay = task.Duration(max(time.Duration(t.Delay), s.opts.Delay))
		if err := t.Validate(); err != nil {
			return fmt.Errorf("round %d of %s: %w", round, c.ID, err)
		}
		spec, err := t.Encode()
		if err != nil {
			return fmt.Errorf("round %d of %s: %w", round, c.ID, err)
		}
		recs = append(recs, channels.Task{ID: t.ID, Channel: c.ID, Round: round, Issued: now,
			Deadline: now.Add(2*iv + s.opts.Slack), Spec: spec, Host: t.Host()})
	}
	if err := s.db.Issue(c.ID, round, recs, now); err != nil {
		return err
	}
	if s.opts.Issued != nil {
		s.opts.Issued(len(recs))
	}
	if len(c.Pushed.URLs) > 0 {
		if err := s.db.MarkPushes(c.ID, round, c.Pushed.Seq); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.strat.Submitted(c.Index, now)
	s.dirty = true
	s.mu.Unlock()
	s.log.Debug("Round issued", "channel", c.ID, "round", round, "tasks", len(recs), "interval", iv)
	return nil
}
