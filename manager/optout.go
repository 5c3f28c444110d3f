package manager

import (
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
)

// OptOut puts hosts or registrable domains (or URLs on them) on the
// opt-out list (channels.DB.AddOptOut), all or none: a name that is no
// web site's is refused (wrapping channels.ErrBadSeed) before any is
// added. by says who asked (channels.OptOutByOperator, or the site and
// its proof). Each crawler holding a lease on a host the list now covers
// is told at once that its lease is over (manager/revoke); should the
// word not reach it, its next renewal is refused.
func (m *Manager) OptOut(names []string, by string) ([]operator.OptedOut, error) {
	for _, n := range names {
		if _, _, err := channels.ParseOptOut(n); err != nil {
			return nil, err
		}
	}
	now := m.opts.Now()
	var out []operator.OptedOut
	for _, n := range names {
		res, err := m.db.AddOptOut(n, by, now)
		if err != nil {
			return out, err
		}
		o := operator.OptedOut{Name: res.OptOut.Name, Domain: res.OptOut.Domain, Known: res.Known, Channels: res.Channels}
		for _, t := range res.Ended {
			if t.Holder == "" || t.Released {
				continue // not claimed, or its holder stopped: its claim is refused
			}
			p, err := peer.Decode(t.Holder)
			if err != nil {
				continue
			}
			m.tell.Lease(p, t.ID, t.Host)
			o.Stopped = append(o.Stopped, t.ID)
		}
		m.log.Info("Site opted out", "name", o.Name, "domain", o.Domain, "by", by, "known", o.Known,
			"channels_removed", len(o.Channels), "crawls_stopped", len(o.Stopped))
		out = append(out, o)
	}
	return out, nil
}

// OptIn takes names off the opt-out list and reports which were on it.
// The channels their opt-outs removed stay removed until a seed brings
// them back.
func (m *Manager) OptIn(names []string) ([]string, error) {
	for _, n := range names {
		if _, _, err := channels.ParseOptOut(n); err != nil {
			return nil, err
		}
	}
	var lifted []string
	for _, n := range names {
		found, err := m.db.RemoveOptOut(n)
		if err != nil {
			return lifted, err
		}
		if found {
			name, _, _ := channels.ParseOptOut(n)
			lifted = append(lifted, name)
			m.log.Info("Opt-out lifted", "name", name)
		}
	}
	return lifted, nil
}

// OptOuts returns the opt-out list.
func (m *Manager) OptOuts() ([]channels.OptOut, error) { return m.db.OptOuts() }
