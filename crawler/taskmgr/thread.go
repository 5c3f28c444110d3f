package taskmgr

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

// counting passes pages to the spool and counts them for the status.
type counting struct {
	next crawler.Sink
	th   *thread
}

func (c counting) Page(p *task.Page) error {
	c.th.pages.Add(1)
	for d := int64(p.Depth); ; {
		cur := c.th.depth.Load()
		if d <= cur || c.th.depth.CompareAndSwap(cur, d) {
			break
		}
	}
	return c.next.Page(p)
}

// runTask is one task thread: crawl into a spool, then mark the task done
// and start its upload. A task interrupted by shutdown stays running in the
// queue for handover or re-execution.
func (m *Manager) runTask(ctx, crawlCtx context.Context, wg *sync.WaitGroup, r *queue.Record, th *thread) {
	var lease *held
	log := m.log.With("task", r.ID, "channel", r.Task.Channel)
	if m.opts.Leaser != nil && r.Task.Lease.Host != "" {
		lctx, h, err := m.claim(ctx, crawlCtx, r, th, log)
		switch {
		case errors.Is(err, ErrLeaseOver):
			m.cancel(log, r.ID, "lease refused: "+err.Error())
			return
		case err != nil:
			if m.stopping(ctx) {
				// The manager may have granted the claim as the stop cut
				// its answer off: give it up, so that whoever the task
				// goes to need not wait for it to lapse.
				m.releaseClaim(log, r, Progress{})
			}
			m.waiting(log, r, err)
			return
		}
		crawlCtx = lctx
		defer h.end()
		lease = h
	}
	path := spoolPath(m.opts.SpoolDir, r.ID)
	resumer, _ := m.opts.Runner.(Resumer)
	var (
		sp     *crawler.Spool
		resume *crawler.Progress
		err    error
	)
	if resumer != nil {
		sp, resume, err = m.openSpool(log, r, path)
	} else {
		sp, err = crawler.OpenSpool(path)
	}
	if err != nil {
		m.cancel(log, r.ID, "cannot write its spool: "+err.Error())
		return
	}
	th.pages.Store(int64(sp.Count()))
	th.resumed.Store(int64(sp.Count()))
	crawlCtx = crawler.WithProcessingMark(crawlCtx, sp.Mark)
	crawlCtx = crawler.WithFrontier(crawlCtx, &th.outlook)
	log.Info("Task started", "attempt", r.Attempts)
	var refused atomic.Bool
	checkpointed := resume != nil
	sink := counting{next: sp, th: th}
	var res *task.Result
	if resumer != nil {
		res, err = resumer.RunFrom(withRefusal(crawlCtx, &refused), r.Task, sink, crawler.RunOptions{
			Resume: resume,
			Every:  m.opts.CheckpointEvery,
			Checkpoint: func(p *crawler.Progress) error {
				if refused.Load() {
					// The crawler counted refused requests as failed pages:
					// this progress lost URLs. The last checkpoint stands.
					return ErrStopping
				}
				if err := m.saveCheckpoint(r.ID, sp, p); err != nil {
					return err
				}
				checkpointed = true
				return nil
			},
		})
	} else {
		res, err = m.opts.Runner.Run(withRefusal(crawlCtx, &refused), r.Task, sink)
	}
	if cause := context.Cause(crawlCtx); err != nil && res != nil && errors.Is(cause, errLeaseEnded) {
		// The lease ran out: keep what was crawled, as a result cut short.
		log.Warn("Crawl stopped by its lease", "pages", th.pages.Load(), "cause", cause)
		res.Stopped, err = cause.Error(), nil
	}
	if err != nil || refused.Load() {
		interrupted := m.stopping(ctx) || refused.Load()
		switch {
		case interrupted && checkpointed && m.opts.HandOff:
			sp.Close()
			m.handOff(log, r.ID, path)
		case interrupted && checkpointed:
			keepSpool(sp) // the next start resumes at the checkpoint
		default:
			discardSpool(sp, path)
		}
		if interrupted {
			log.Info("Task interrupted by shutdown", "pages", th.pages.Load())
			if lease != nil {
				lease.end()
				lease.release()
			}
			return
		}
		m.cancel(log, r.ID, "crawl failed: "+err.Error())
		return
	}
	if err := commitSpool(sp, path); err != nil {
		os.Remove(path)
		m.cancel(log, r.ID, err.Error())
		return
	}
	if res == nil {
		res = &task.Result{TaskID: r.ID, Channel: r.Task.Channel}
	}
	if o := m.opts.Outcomes; o != nil {
		o.TaskEnded(res.Strike)
	}
	if err := m.q.Finish(r.ID, res, path, m.opts.Now()); err != nil {
		// Handed over meanwhile, or the queue failed: the result is not ours
		// to deliver.
		os.Remove(path)
		log.Warn("Task result dropped", "err", err)
		return
	}
	log.Info("Task done", "pages", th.pages.Load(), "elapsed", m.opts.Now().Sub(th.started).Round(time.Millisecond))
	done, err := m.q.Get(r.ID)
	if err != nil {
		log.Error("Cannot read finished task back", "err", err)
		return
	}
	m.startUpload(ctx, wg, done)
}

func (m *Manager) cancel(log *slog.Logger, id, reason string) {
	if err := m.q.Cancel(id, reason, m.opts.Now()); err != nil && !errors.Is(err, queue.ErrState) {
		log.Error("Cannot record a failed task", "reason", reason, "err", err)
		return
	}
	log.Warn("Task cancelled", "reason", reason)
}
