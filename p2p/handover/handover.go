// Package handover hands a leaving peer's tasks to the heirs of its
// zones. Once the manager has given the zones to their heirs, each heir
// is handed the queued and running tasks whose signed target lies in the
// zones it received, in the handover protocol (wire.SendHandover), with
// the certificates that show it may take them (the heir checks them,
// admission.CheckHandover). The tasks no heir takes go back to the
// manager: those whose target no heir holds (they came to the leaving
// peer balanced or shared, and no heir could prove it may claim their
// leases), those an heir declined (its queue was full), and those of an
// heir that could not be reached.
package handover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Heir is a peer the manager gave some of a leaving peer's zones to.
type Heir struct {
	ID    peer.ID
	Zones []can.Zone
}

// Config says how a leaving peer hands its tasks over.
type Config struct {
	// Manager is the key the tasks are signed with, whose targets say
	// which heir takes each.
	Manager crypto.PubKey
	// Dim is the CAN space's dimension.
	Dim int
	// Pause is how long to wait before handing running tasks over: their
	// crawls have just been stopped, and a host may still be answering
	// the last request when the heir starts on it. 0: none.
	Pause time.Duration
}

// Hand hands the queued and running task envelopes to heirs over h,
// the heir taking the most volume first, each handover carrying certs
// (the leaving peer's certificates and the heirs', up to wire.MaxZones).
// It returns the envelopes no heir took, and the errors of the heirs
// that could not be reached or refused.
func Hand(ctx context.Context, h wire.Opener, heirs []Heir, certs []zonecert.Cert, queued, running [][]byte, cfg Config) (back [][]byte, err error) {
	heirs = slices.Clone(heirs)
	slices.SortFunc(heirs, func(a, b Heir) int {
		if c := cmp.Compare(can.Volume(b.Zones), can.Volume(a.Zones)); c != 0 {
			return c
		}
		return strings.Compare(string(a.ID), string(b.ID))
	})
	if len(running) > 0 && cfg.Pause > 0 {
		// One crawler at a time per host: the heir starts these tasks at
		// once, so let the hosts finish our last requests first.
		select {
		case <-ctx.Done(): // the handover below fails, and says why
		case <-time.After(cfg.Pause):
		}
	}
	var raw [][]byte
	for _, c := range certs[:min(len(certs), wire.MaxZones)] {
		if b, err := c.MarshalBinary(); err == nil {
			raw = append(raw, b)
		}
	}
	shares, back := divide(heirs, queued, running, cfg)
	var errs []error
	for i, heir := range heirs {
		q, r := shares[i].queued, shares[i].running
		if len(q)+len(r) == 0 {
			continue
		}
		all := append(slices.Clone(q), r...) // in the order sent
		declined, err := send(ctx, h, heir.ID, wire.SplitHandover(&wire.Handover{Certs: raw}, q, r))
		if err != nil {
			errs = append(errs, err)
			back = append(back, all...)
			continue
		}
		back = append(back, wire.DeclinedOf(all, declined)...)
	}
	return back, errors.Join(errs...)
}

// share is the tasks one heir is handed.
type share struct{ queued, running [][]byte }

// divide gives each heir the tasks of queued and running whose signed
// target lies in its zones, where its certificate proves to the manager
// that it may claim them; the rest go back. Each envelope is opened once.
func divide(heirs []Heir, queued, running [][]byte, cfg Config) (shares []share, back [][]byte) {
	shares = make([]share, len(heirs))
	for _, set := range []struct {
		envs    [][]byte
		running bool
	}{{queued, false}, {running, true}} {
		for _, e := range set.envs {
			i := -1
			if t, err := envelope.Open(e, cfg.Manager); err == nil && len(t.Target) == cfg.Dim {
				target := can.Clamp(t.Target)
				i = slices.IndexFunc(heirs, func(h Heir) bool { return can.Holds(h.Zones, target) })
			}
			switch {
			case i < 0:
				back = append(back, e)
			case set.running:
				shares[i].running = append(shares[i].running, e)
			default:
				shares[i].queued = append(shares[i].queued, e)
			}
		}
	}
	return shares, back
}

// send sends the batches to heir to and returns the positions of the
// tasks it took the zones but not the tasks of (its queue was full).
func send(ctx context.Context, h wire.Opener, to peer.ID, batches []*wire.Handover) ([]uint32, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*wire.DefaultTimeout)
	defer cancel()
	s, err := h.NewStream(wire.AllowRelayed(ctx), to, wire.HandoverProtocol)
	if err != nil {
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	defer s.Close()
	declined, err := wire.SendHandover(ctx, wire.NewConn(s, wire.MaxHandoverResponseSize), batches)
	if err != nil {
		s.Reset()
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	return declined, nil
}
