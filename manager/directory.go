package manager

import (
	"crypto/ed25519"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// certify puts the bot key a crawler presented with its claim in the key
// directory. A peer whose key was withdrawn is refused.
func (m *Manager) certify(from peer.ID, key []byte) error {
	if len(key) == 0 {
		return nil
	}
	if len(key) != ed25519.PublicKeySize {
		return fmt.Errorf("bot key of %d bytes, want an Ed25519 public key", len(key))
	}
	if _, err := m.keys.Certify(from.String(), ed25519.PublicKey(key), m.opts.Now()); err != nil {
		return err
	}
	return nil
}

// WithdrawKey withdraws the request-signing key of a volunteer (by peer ID
// or keyid) from the key directory: sites stop accepting its signatures
// once their copy of the directory expires, and the peer's claims on host
// leases are refused from then on.
func (m *Manager) WithdrawKey(peerOrKeyID, reason string) error {
	if err := m.keys.Withdraw(peerOrKeyID, reason, m.opts.Now()); err != nil {
		return fmt.Errorf("withdraw key %s: %w", peerOrKeyID, err)
	}
	m.log.Info("Request-signing key withdrawn", "key", peerOrKeyID, "reason", reason)
	if p, ok := m.keyPeer(peerOrKeyID); ok {
		m.tell.All(p, reason)
	}
	return nil
}

// keyPeer returns the peer a peer ID or keyid names.
func (m *Manager) keyPeer(peerOrKeyID string) (peer.ID, bool) {
	if p, err := peer.Decode(peerOrKeyID); err == nil {
		return p, true
	}
	s, err := m.keys.Status(peerOrKeyID)
	if err != nil {
		return "", false
	}
	p, err := peer.Decode(s.PeerID)
	return p, err == nil
}

// withdrawnAnswer refuses a claim or renewal of a peer whose
// request-signing key was withdrawn, and tells it every lease it holds
// is over (the fallback of the revocation WithdrawKey sends).
var withdrawnAnswer = lease.Answer{Error: "refused: this volunteer's request-signing key was withdrawn",
	Withdrawn: "the network's operator withdrew this volunteer's request-signing key"}

// withdrawn reports whether peer p's request-signing key was withdrawn,
// at this manager or another of a shared database.
func (m *Manager) withdrawn(p peer.ID) (bool, error) {
	return m.keys.PeerWithdrawn(p.String())
}

// keyRefusal is the answer to a lease request of peer p whose key was
// withdrawn, or when the key registry cannot be read to know (a refusal
// the peer retries, not the word that its leases are over); refused is
// false when the request may go on.
func (m *Manager) keyRefusal(p peer.ID) (a lease.Answer, refused bool) {
	w, err := m.withdrawn(p)
	switch {
	case err != nil:
		m.log.Warn("Lease refused: the key registry cannot be read", "peer", p, "err", err)
		return lease.Answer{Error: "refused: the manager cannot check this volunteer's request-signing key now; try again shortly"}, true
	case w:
		return withdrawnAnswer, true
	}
	return lease.Answer{}, false
}

// DirectoryURL returns the key directory's URL as web sites reach it (at
// the Signature-Agent origin), or "" when none is served.
func (m *Manager) DirectoryURL() string {
	if m.dir == nil {
		return ""
	}
	return m.opts.Politeness.Policy.SignatureAgent + botauth.DirectoryPath
}
