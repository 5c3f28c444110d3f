package manager

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

// ProfilePath returns where the network profile is written.
func (m *Manager) ProfilePath() string { return filepath.Join(m.opts.Dir, ProfileFile) }

// WriteProfile writes the network profile and returns it.
func (m *Manager) WriteProfile() (*profile.Profile, error) {
	addrs := m.host.P2PAddrs()
	if m.shared != nil {
		addrs = append(addrs, m.shared.Others()...)
	}
	addrs = append(profileAddrs(addrs, m.opts.allow(), m.log), m.opts.Bootstrap...)
	if err := floor.Bootstrap(m.opts.Bootstrap, m.opts.allow()); err != nil {
		return nil, fmt.Errorf("volunteers would refuse the network profile: %w; name public addresses with --bootstrap", err)
	}
	p, err := profile.New(m.opts.Name, m.key.GetPublic(), addrs)
	if err != nil {
		return nil, err
	}
	if m.opts.Placement.Bounds != nil {
		b := *m.opts.Placement.Bounds
		p.Bounds = &b
	}
	p.SignatureAgent = m.opts.Politeness.Policy.SignatureAgent
	p.MinClientVersion = m.opts.Admission.MinClientVersion
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, profile.Write(m.ProfilePath(), p)
}

// profileAddrs leaves out the addresses volunteers' clients refuse to
// dial (internal/floor: loopback, private, link-local and other
// special-purpose ranges, less what allow lets through) unless nothing
// else is left: such a profile serves only tests and this machine, and
// the operator is told so.
func profileAddrs(addrs []string, allow netguard.Allow, log *slog.Logger) []string {
	var out []string
	for _, a := range addrs {
		if floor.Bootstrap([]string{a}, allow) == nil {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		log.Warn("The network profile has no public address, and volunteers' clients refuse the private, loopback and link-local ones it has: listen on a public address or name one with --bootstrap", "addrs", addrs)
		return addrs
	}
	return out
}
