package upload

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// ReceiptsProtocol is the libp2p protocol on which a crawler asks for the
// current receipts of its results: a pending receipt is signed again once
// its result is confirmed or revoked.
const ReceiptsProtocol = "/hivecrawl/storage/receipts/1.0.0"

// MaxReceiptsAsked bounds the task IDs of one receipts request.
const MaxReceiptsAsked = 256

// MaxReceiptsMessage bounds a receipts request or answer.
const MaxReceiptsMessage = MaxReceiptsAsked * (MaxResponseSize / 8)

// ReceiptsRequest names the tasks whose receipts the asker wants.
type ReceiptsRequest struct {
	Tasks []string `json:"tasks"`
}

// ReceiptsAnswer holds the asker's current signed receipts among those
// asked for; tasks of other peers, or with no receipt, are left out.
type ReceiptsAnswer struct {
	Receipts [][]byte `json:"receipts"`
}

// FetchReceipts asks the storage module at p for the current receipts of
// tasks (at most MaxReceiptsAsked) and returns them as signed, unverified:
// the caller verifies each with VerifyReceipt.
func FetchReceipts(ctx context.Context, h frame.StreamOpener, p peer.ID, tasks []string) ([][]byte, error) {
	if len(tasks) > MaxReceiptsAsked {
		tasks = tasks[:MaxReceiptsAsked]
	}
	var ans ReceiptsAnswer
	if err := frame.Call(ctx, h, p, ReceiptsProtocol, ReceiptsRequest{Tasks: tasks}, &ans, MaxReceiptsMessage, 30*time.Second); err != nil {
		return nil, fmt.Errorf("fetch receipts: %w", err)
	}
	if len(ans.Receipts) > len(tasks) {
		return nil, fmt.Errorf("fetch receipts: %w: %d receipts for %d tasks", ErrMalformed, len(ans.Receipts), len(tasks))
	}
	return ans.Receipts, nil
}
