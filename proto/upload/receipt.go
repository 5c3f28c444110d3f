package upload

import (
	"encoding/json"
	"fmt"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/task"
)

// ReceiptKind is the kind of a credit receipt envelope: the payload is the
// task.Receipt's JSON encoding, signed with the storage module's key (the
// manager's key, which the network profile publishes).
var ReceiptKind = envelope.Kind{
	Domain:      "hivecrawl-receipt",
	PayloadType: []byte("/hivecrawl/receipt/json/1"),
}

// SignReceipt encodes r and signs it with key.
func SignReceipt(r task.Receipt, key crypto.PrivKey) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode receipt for task %s: %w", r.TaskID, err)
	}
	return envelope.SealRecord(ReceiptKind, b, key)
}

// VerifyReceipt checks that raw is a receipt signed by key (the network
// profile's manager key) and returns it. Errors wrap p2p/envelope's
// sentinels: ErrForged for another signer, ErrAltered for changed bytes.
func VerifyReceipt(raw []byte, key crypto.PubKey) (task.Receipt, error) {
	return envelope.OpenRecord(raw, ReceiptKind, key, decodeReceipt)
}

func decodeReceipt(b []byte) (task.Receipt, error) {
	var r task.Receipt
	if err := frame.Strict(b, &r); err != nil {
		return task.Receipt{}, err
	}
	if r.TaskID == "" || r.Peer == "" || r.Credits < 0 || r.PagesAccepted < 0 || r.Bytes < 0 {
		return task.Receipt{}, fmt.Errorf("%w: receipt lacks task or peer, or has negative figures", ErrMalformed)
	}
	switch r.State {
	case "", task.CreditPending, task.CreditConfirmed, task.CreditRevoked:
	default:
		return task.Receipt{}, fmt.Errorf("%w: receipt credit state %q", ErrMalformed, r.State)
	}
	return r, nil
}
