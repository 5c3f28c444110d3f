package taskmgr

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
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

// openSpool opens the task's spool: resumed at its checkpoint when the
// record has one that still matches the file, else new. It returns the
// crawl progress to resume from (nil for a new start).
func (m *Manager) openSpool(log *slog.Logger, r *queue.Record, path string) (*crawler.Spool, *crawler.Progress, error) {
	if len(r.Progress) > 0 {
		var cp checkpoint
		p, err := func() (*crawler.Progress, error) {
			if err := json.Unmarshal(r.Progress, &cp); err != nil {
				return nil, err
			}
			return crawler.DecodeProgress(cp.Crawl)
		}()
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
