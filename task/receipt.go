package task

import "time"

// Receipt is the storage module's acknowledgement of one task's upload: what
// it accepted from the crawling peer and the credit it grants. It travels as
// signed bytes (the signature format comes with the storage module); these
// are the fields a client and the manager read from it. A task has at most
// one receipt, so TaskID identifies it.
type Receipt struct {
	TaskID  string `json:"task_id"`
	Channel string `json:"channel,omitempty"`
	// Peer is the crawling peer's ID (libp2p peer ID string).
	Peer string `json:"peer"`
	// PagesAccepted counts the pages stored, PagesNew and PagesChanged
	// those that were new or had changed since the last crawl.
	PagesAccepted int   `json:"pages_accepted"`
	PagesNew      int   `json:"pages_new"`
	PagesChanged  int   `json:"pages_changed"`
	Bytes         int64 `json:"bytes"`
	// Credits granted for the upload.
	Credits  float64   `json:"credits"`
	IssuedAt time.Time `json:"issued_at"`
	// State is where the credit stands: CreditPending while the result
	// waits for a spot-check, CreditConfirmed once it passed one or the
	// peer's record let it through, CreditRevoked when it failed one.
	// Receipts signed before results were checked carry none and count as
	// confirmed (see Settled).
	State string `json:"state,omitempty"`
	// Reason says why credit was revoked, or why a check was skipped.
	Reason string `json:"reason,omitempty"`
}

// Credit states of a receipt.
const (
	CreditPending   = "pending"
	CreditConfirmed = "confirmed"
	CreditRevoked   = "revoked"
)

// Settled returns the receipt's credit state, CreditConfirmed for a
// receipt that names none.
func (r Receipt) Settled() string {
	if r.State == "" {
		return CreditConfirmed
	}
	return r.State
}
