package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/task"
)

// localCreditPerPage is the placeholder credit of a locally kept page.
// Local receipts are unsigned, so their credit stays pending for ever; the
// storage module (issue 5) will grant real, confirmed credit.
const localCreditPerPage = 1.0

// ledgerSink keeps receipts in the credits ledger: receipts signed by the
// network's storage module as confirmed credit, and a LocalUploader's
// unsigned receipts as pending.
type ledgerSink struct {
	l   *ledger.Ledger
	now func() time.Time
	// manager verifies signed receipts; nil when the client keeps results
	// locally.
	manager crypto.PubKey
}

var _ taskmgr.ReceiptSink = (*ledgerSink)(nil)

// Receipt adds the receipt of d to the ledger; a repeat is counted once.
func (s *ledgerSink) Receipt(ctx context.Context, d taskmgr.Delivery, raw []byte) error {
	if s.manager != nil {
		r, err := storage.VerifyReceipt(raw, s.manager)
		if err != nil {
			return fmt.Errorf("keep receipt of task %s: %w", d.TaskID, err)
		}
		_, err = s.l.Add(raw, r, true, s.now())
		return err
	}
	var lr LocalReceipt
	if err := json.Unmarshal(raw, &lr); err != nil || lr.Kind != LocalReceiptKind {
		return fmt.Errorf("keep receipt of task %s: not a local receipt", d.TaskID)
	}
	r := task.Receipt{
		TaskID: d.TaskID, Channel: d.Channel, PagesAccepted: lr.Pages, Bytes: lr.Bytes,
		Credits: localCreditPerPage * float64(lr.Pages), IssuedAt: lr.Received,
	}
	if d.Result != nil {
		r.PagesNew, r.PagesChanged = d.Result.Stats.PagesNew, d.Result.Stats.PagesChanged
	}
	if _, err := s.l.Add(raw, r, false, s.now()); err != nil {
		return err
	}
	return nil
}
