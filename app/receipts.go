package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/proto/upload"
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
		r, err := upload.VerifyReceipt(raw, s.manager)
		if err != nil {
			return fmt.Errorf("keep receipt of task %s: %w", d.TaskID, err)
		}
		if _, err := s.l.Add(raw, r, r.Settled() == task.CreditConfirmed, s.now()); err != nil {
			return err
		}
		// A receipt signed again as confirmed or revoked settles the
		// pending copy kept before; Settle leaves anything else alone.
		_, err = s.l.Settle(raw, r)
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

// defaultSettleEvery is how often pending credit is asked about.
const defaultSettleEvery = time.Minute

// settleReceipts asks the storage module, while ctx lasts, for the current
// receipts of the results whose credit is pending, and keeps those it
// confirmed or revoked.
func (c *Client) settleReceipts(ctx context.Context) error {
	every := c.opts.SettleEvery
	if every <= 0 {
		every = defaultSettleEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := c.settleOnce(ctx); err != nil {
			c.log.Debug("Pending credit not brought up to date", "err", err)
		}
	}
}

// settleOnce brings up to date the next upload.MaxReceiptsAsked of the
// ledger's pending receipts, in turns (Client.settleAfter): receipts that
// will never settle (kept locally, or another network's) do not keep the
// rest from being asked about.
func (c *Client) settleOnce(ctx context.Context) error {
	ids, next, err := c.ledger.PendingAfter(c.settleAfter, upload.MaxReceiptsAsked)
	if err != nil || len(ids) == 0 {
		return err
	}
	c.settleAfter = next
	raws, err := upload.FetchReceipts(ctx, c.net.h, c.net.manager, ids)
	if err != nil {
		return err
	}
	for _, raw := range raws {
		r, err := upload.VerifyReceipt(raw, c.net.key)
		if err != nil {
			return err
		}
		if r.Peer != c.net.h.ID().String() {
			return fmt.Errorf("storage sent the receipt of task %s for peer %s", r.TaskID, r.Peer)
		}
		changed, err := c.ledger.Settle(raw, r)
		if err != nil {
			return err
		}
		if changed {
			c.log.Info("Credit settled", "task", r.TaskID, "state", r.Settled(), "credits", r.Credits, "reason", r.Reason)
		}
	}
	return nil
}
