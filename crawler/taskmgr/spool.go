package taskmgr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

// spoolPath names the spool file of a task; task IDs may hold any bytes, so
// the name is a hash of the ID.
func spoolPath(dir, id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".spool")
}

// SpoolReach returns, for queue.Options.Reached, what the spool of a task
// in dir says of its crawl (crawler.SpoolState).
func SpoolReach(dir string) func(*queue.Record) queue.Reach {
	return func(r *queue.Record) queue.Reach {
		pages, dying, written, _ := crawler.SpoolState(spoolPath(dir, r.ID))
		return queue.Reach{Pages: pages, Dying: dying, Written: written}
	}
}

// checkpoint is a task's progress as the queue keeps it: the crawl's, and
// how much of the spool it covers.
type checkpoint struct {
	Crawl        json.RawMessage `json:"crawl"`
	SpoolBytes   int64           `json:"spool_bytes"`
	SpoolPages   int             `json:"spool_pages"`
	SpoolRecords int             `json:"spool_records"`
}

// readCheckpoint decodes a checkpoint as saveCheckpoint stored it.
func readCheckpoint(raw []byte) (checkpoint, *crawler.Progress, error) {
	var cp checkpoint
	if err := json.Unmarshal(raw, &cp); err != nil {
		return cp, nil, fmt.Errorf("decode checkpoint: %w", err)
	}
	p, err := crawler.DecodeProgress(cp.Crawl)
	return cp, p, err
}

// openSpool opens the task's spool: resumed at its checkpoint when the
// record has one that still matches the file, else new. It returns the
// crawl progress to resume from (nil for a new start).
func (m *Manager) openSpool(log *slog.Logger, r *queue.Record, path string) (*crawler.Spool, *crawler.Progress, error) {
	if len(r.Progress) > 0 {
		cp, p, err := readCheckpoint(r.Progress)
		if err == nil {
			sp, serr := crawler.ResumeSpool(path, cp.SpoolBytes, cp.SpoolPages, cp.SpoolRecords)
			if serr == nil {
				log.Info("Task resumed from its checkpoint", "pages", cp.SpoolPages, "waiting", len(p.Todo))
				return sp, p, nil
			}
			err = serr
		}
		log.Warn("Checkpoint not usable; crawling the task from the start", "err", err)
	}
	sp, err := crawler.OpenSpool(path)
	return sp, nil, err
}

// saveCheckpoint makes the spool durable and then records p with it, so
// the stored checkpoint never counts pages the spool could lose.
func (m *Manager) saveCheckpoint(id string, sp *crawler.Spool, p *crawler.Progress) error {
	if err := sp.Sync(); err != nil {
		return err
	}
	crawl, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	b, err := json.Marshal(checkpoint{Crawl: crawl, SpoolBytes: sp.Size(), SpoolPages: sp.Count(), SpoolRecords: sp.Records()})
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	return m.q.SaveProgress(id, b)
}

// keepSpool closes an interrupted spool, keeping the file for the resume.
func keepSpool(sp *crawler.Spool) { sp.Close() }

// commitSpool syncs and closes a finished spool and makes its directory
// entry durable, so the task may be marked done.
func commitSpool(sp *crawler.Spool, path string) error {
	if err := sp.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	return nil
}

// discardSpool closes and deletes an unfinished spool.
func discardSpool(sp *crawler.Spool, path string) {
	sp.Close()
	os.Remove(path)
}

// handOff ends task id, interrupted by a graceful stop, at its last
// checkpoint (Options.HandOff): the spool is cut back to it and the task
// is done with a result cut short that carries the rest of the crawl.
// When that cannot be done (the rest is too large for a continuation
// task, the checkpoint does not read) the task stays running, its spool
// kept: handed over, it starts again from its seeds at the heir.
func (m *Manager) handOff(log *slog.Logger, id, path string) {
	r, err := m.q.Get(id)
	if err != nil {
		log.Warn("Task not handed off", "err", err)
		return
	}
	cp, p, err := readCheckpoint(r.Progress)
	if err != nil {
		log.Warn("Task not handed off: its checkpoint does not read", "err", err)
		return
	}
	rest := p.PassOn()
	if rest == nil {
		log.Info("Task not handed off: what is left is too large to pass on", "waiting", len(p.Todo))
		return
	}
	res := p.Result
	if len(rest.Todo) > 0 {
		res.Stopped, res.Rest = task.StoppedHandedOff, rest
	}
	sp, err := crawler.ResumeSpool(path, cp.SpoolBytes, cp.SpoolPages, cp.SpoolRecords)
	if err == nil {
		err = commitSpool(sp, path)
	}
	if err == nil {
		err = m.q.Finish(id, res, path, m.opts.Now())
	}
	if err != nil {
		log.Warn("Task not handed off", "err", err)
		return
	}
	log.Info("Task handed off at its checkpoint", "pages", cp.SpoolPages, "left", len(rest.Todo))
}

// deliverAtStop uploads, within Grace, the results a graceful stop
// leaves: the crawls it handed off, and those that had finished and were
// waiting for their upload. Their leases end with the upload, so the
// manager frees their hosts now rather than when the leases lapse, and
// counts no lapse against this volunteer. What is not delivered in time
// is uploaded at the next start.
func (m *Manager) deliverAtStop(ctx context.Context) {
	rs, err := m.q.Uploads() // the handed-off ones among them
	if err != nil {
		m.log.Warn("Cannot list the results waiting for their upload", "err", err)
		return
	}
	if len(rs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.opts.Grace)
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Go(func() { m.deliver(ctx, r) })
	}
	wg.Wait()
}
