package taskmgr

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
)

// startUpload delivers a done task's result in its own goroutine, retrying
// with backoff until ctx ends.
func (m *Manager) startUpload(ctx context.Context, wg *sync.WaitGroup, r *queue.Record) {
	if ctx.Err() != nil {
		return // resumed at the next start
	}
	m.mu.Lock()
	m.uploading++
	m.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { m.mu.Lock(); m.uploading--; m.mu.Unlock() }()
		m.deliver(ctx, r)
	}()
}

func (m *Manager) deliver(ctx context.Context, r *queue.Record) {
	log := m.log.With("task", r.ID, "channel", r.Task.Channel)
	d := Delivery{TaskID: r.ID, Channel: r.Task.Channel, Raw: r.Raw, Result: r.Result, Spool: r.Spool}
	receipt := r.Receipt
	if r.Upload == queue.UploadPending {
		err := m.retry(ctx, log, "Upload failed", func() error {
			var err error
			receipt, err = m.opts.Uploader.Upload(ctx, d)
			return err
		})
		switch {
		case errors.Is(err, ErrRefused):
			log.Error("Result refused; not sent again", "err", err)
			receipt = nil
		case err != nil:
			return
		}
		if err := m.q.Delivered(r.ID, receipt); err != nil {
			log.Error("Cannot record an upload's receipt", "err", err)
			return
		}
		if receipt != nil {
			log.Info("Result uploaded")
		}
	}
	if m.opts.Receipts != nil && receipt != nil { // a refused result has none
		err := m.retry(ctx, log, "Cannot keep a receipt", func() error {
			return m.opts.Receipts.Receipt(ctx, d, receipt)
		})
		if err != nil {
			return
		}
	}
	if d.Spool != "" {
		if err := os.Remove(d.Spool); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("Cannot delete an uploaded spool", "err", err)
		}
	}
	if err := m.q.Recorded(r.ID); err != nil {
		log.Error("Cannot record a kept receipt", "err", err)
	}
}

// retry calls fn until it succeeds, fails for good (ErrRefused) or ctx
// ends, waiting MinBackoff, then twice as long each time up to MaxBackoff;
// RetryNow ends a wait and starts the backoff again. It returns ctx's
// error or the final one.
func (m *Manager) retry(ctx context.Context, log *slog.Logger, msg string, fn func() error) error {
	wait := m.opts.MinBackoff
	for attempt := 1; ; attempt++ {
		again := m.retrySignal()
		err := fn()
		if err == nil || errors.Is(err, ErrRefused) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Warn(msg, "attempt", attempt, "retry_in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-again:
			t.Stop()
			wait = m.opts.MinBackoff
			continue
		case <-t.C:
		}
		wait = min(2*wait, m.opts.MaxBackoff)
	}
}
