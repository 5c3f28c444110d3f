package manager

import "fmt"

// resultFailed is told when a peer's result failed its spot-checks: from
// the operator's strike limit on, the peer's request-signing key is
// withdrawn, so it is granted no lease and web sites see its requests as
// unverified.
func (m *Manager) resultFailed(p string, failures int, withdraw bool) {
	m.log.Warn("A result failed validation", "peer", p, "failures", failures)
	if !withdraw {
		return
	}
	if err := m.WithdrawKey(p, fmt.Sprintf("%d results failed validation", failures)); err != nil {
		m.log.Warn("Key not withdrawn", "peer", p, "err", err)
	}
}
