package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/boltfile"
)

// feedEvery is how often the seeds feeder tries to top up the queue.
const feedEvery = 250 * time.Millisecond

// feeder submits the tasks of a seeds file, round after round, as the
// queue has room: a stand-in for the overlay until it exists.
type feeder struct {
	seeds     []Seed
	params    SeedTasks
	roundFile string
	q         *queue.Queue
	m         *taskmgr.Manager
	now       func() time.Time
	log       *slog.Logger
	round     seedRound // as openRound read it
}

// openRound reads the round file. A damaged one is moved aside with one
// line and the rounds count again from the first: tasks of a round already
// in the queue are not submitted twice.
func (f *feeder) openRound() error {
	r, err := loadRound(f.roundFile)
	if err != nil {
		aside, merr := boltfile.MoveAsidePath(f.roundFile, f.now())
		if merr != nil {
			return fmt.Errorf("%w, and moving it aside failed: %v", err, merr)
		}
		f.log.Warn("Seeds round file damaged; moved aside, counting rounds from the first", "file", f.roundFile, "moved_to", aside, "problem", err.Error())
		r = seedRound{}
	}
	f.round = r
	return nil
}

// Serve feeds the queue until ctx ends.
func (f *feeder) Serve(ctx context.Context) error {
	r := f.round
	if r.Round == 0 {
		r = seedRound{Round: 1, Started: f.now()}
		if err := saveRound(f.roundFile, r); err != nil {
			return err
		}
	}
	f.log.Info("Submitting tasks from the seeds file", "seeds", len(f.seeds), "round", r.Round, "every", f.params.Interval)
	known := make(map[string]bool) // IDs of this round already submitted
	tick := time.NewTicker(feedEvery)
	defer tick.Stop()
	for {
		if now := f.now(); now.Sub(r.Started) >= f.params.Interval {
			r = seedRound{Round: r.Round + 1, Started: now}
			if err := saveRound(f.roundFile, r); err != nil {
				return err
			}
			clear(known)
			f.log.Info("Submitting the seeds again", "round", r.Round)
		}
		f.submit(r, known)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// submit offers every seed of round r not yet submitted, in file order,
// until the queue is full.
func (f *feeder) submit(r seedRound, known map[string]bool) {
	for _, s := range f.seeds {
		t := f.params.Task(s, r.Round, r.Started)
		if known[t.ID] {
			continue
		}
		if _, err := f.q.Get(t.ID); err == nil {
			known[t.ID] = true
			continue
		}
		raw, err := t.Encode()
		if err != nil {
			f.log.Error("Cannot encode a seed task", "seed", s.URL, "err", err)
			continue
		}
		switch err := f.m.Submit(raw, nil, t); {
		case err == nil, errors.Is(err, queue.ErrDuplicate):
			known[t.ID] = true
		case errors.Is(err, queue.ErrFull):
			return
		default:
			f.log.Error("Cannot queue a seed task", "seed", s.URL, "err", err)
			return
		}
	}
}
