package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// LocalReceiptKind labels the receipts a LocalUploader issues: they are not
// signed by any storage module and earn no credit.
const LocalReceiptKind = "hivecrawl local receipt (unsigned, no credit)"

// LocalReceipt is the receipt a LocalUploader returns, JSON-encoded.
type LocalReceipt struct {
	Kind     string    `json:"kind"`
	TaskID   string    `json:"task_id"`
	Channel  string    `json:"channel"`
	Pages    int       `json:"pages"`
	Bytes    int64     `json:"bytes"`
	Received time.Time `json:"received"`
}

// LocalResult is what a LocalUploader keeps beside each result's pages.
type LocalResult struct {
	taskmgr.Delivery
	Receipt LocalReceipt `json:"receipt"`
}

// LocalUploader stands in for the storage module (issue 5): it moves each
// result's spool to Dir and writes a JSON file with the task, its result
// and a local receipt. A repeated delivery of a task ID returns the first
// receipt and writes nothing.
type LocalUploader struct {
	Dir string
	Now func() time.Time // default time.Now
}

var _ taskmgr.Uploader = (*LocalUploader)(nil)

// resultName is the file name stem of a task's result.
func resultName(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:12])
}

// SpoolPath is where u keeps task id's spool once its delivery moved it
// there.
func (u *LocalUploader) SpoolPath(id string) string {
	return filepath.Join(u.Dir, resultName(id)+".spool")
}

// Upload keeps d under u.Dir and returns a local receipt.
func (u *LocalUploader) Upload(ctx context.Context, d taskmgr.Delivery) ([]byte, error) {
	if err := os.MkdirAll(u.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("local upload of task %s: %w", d.TaskID, err)
	}
	stem := filepath.Join(u.Dir, resultName(d.TaskID))
	if b, err := os.ReadFile(stem + ".json"); err == nil {
		var prev LocalResult
		if err := json.Unmarshal(b, &prev); err != nil || prev.TaskID != d.TaskID {
			return nil, fmt.Errorf("local upload of task %s: existing result %s.json is unreadable", d.TaskID, stem)
		}
		return json.Marshal(prev.Receipt)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("local upload of task %s: %w", d.TaskID, err)
	}
	spool := u.SpoolPath(d.TaskID)
	n, err := keep(d.Spool, spool)
	if err != nil {
		return nil, fmt.Errorf("local upload of task %s: %w", d.TaskID, err)
	}
	now := time.Now
	if u.Now != nil {
		now = u.Now
	}
	rc := LocalReceipt{Kind: LocalReceiptKind, TaskID: d.TaskID, Channel: d.Channel, Bytes: n, Received: now().UTC()}
	if d.Result != nil {
		rc.Pages = d.Result.Stats.PagesFetched
	}
	res := LocalResult{Delivery: d, Receipt: rc}
	res.Spool = filepath.Base(spool)
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("local upload of task %s: %w", d.TaskID, err)
	}
	// The JSON file is written last: its presence means the result is kept.
	if err := atomicfile.WriteFile(stem+".json", b, 0o600); err != nil {
		return nil, fmt.Errorf("local upload of task %s: %w", d.TaskID, err)
	}
	return json.Marshal(rc)
}

// keep moves the spool src to dst, where the result is kept, and returns
// its size. A rename adds nothing to what the client keeps on disk: the
// disk limits (app/governor) read it once the crawl ends, and a copy
// doubled the spool while the next task started on that reading. A spool
// an earlier delivery moved before it was cut short is found at dst; one
// on another volume is copied.
func keep(src, dst string) (int64, error) {
	switch err := os.Rename(src, dst); {
	case err == nil:
		if err := atomicfile.SyncDir(filepath.Dir(dst)); err != nil {
			return 0, err
		}
	case errors.Is(err, fs.ErrNotExist):
		// Moved already, or missing: dst says which.
	default:
		return copyFile(src, dst)
	}
	info, err := os.Stat(dst)
	if err != nil {
		return 0, fmt.Errorf("keep spool %s: %w", src, err)
	}
	return info.Size(), nil
}

// copyFile copies src to dst through a synced temporary file.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err == nil {
		err = atomicfile.SyncDir(filepath.Dir(dst)) // before the source spool goes
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("copy %s: %w", src, err)
	}
	return n, nil
}
