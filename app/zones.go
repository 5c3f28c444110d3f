package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hivecrawl/hivecrawl/manager/entry"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// zoneAuthority is the manager's map of zones as the node reaches it: the
// entry protocol's operations (manager/entry). Every request reports this
// member's coordinate and capacity, as a renewal always has, and every
// answer brings the manager's word on this client's version and the
// trained bounds.
type zoneAuthority struct{ nw *network }

// errOutdatedOp is returned for an operation the manager refused because
// this client's version is older than the network's minimum.
var errOutdatedOp = errors.New("the manager gives this version no zone")

func (za zoneAuthority) Zones(ctx context.Context, req zonecert.Request) (zonecert.Grant, error) {
	nw := za.nw
	r := entry.Request{Op: string(req.Op), Point: req.Point, Member: true}
	if req.Suspect != "" {
		r.Suspect = req.Suspect.String()
	}
	a, err := nw.ask(ctx, r)
	switch {
	case err != nil:
		return zonecert.Grant{}, err
	case a.Outdated != "":
		return zonecert.Grant{}, fmt.Errorf("%w: %s", errOutdatedOp, a.Outdated)
	case a.Refused == entry.RefusedRejoin:
		return zonecert.Grant{}, fmt.Errorf("%w: %s", zonecert.ErrRejoin, a.Refused)
	case a.Refused != "":
		return zonecert.Grant{}, fmt.Errorf("the manager refused to %s: %s", req.Op, a.Refused)
	}
	var g zonecert.Grant
	for _, b := range a.Certs {
		c, err := zonecert.Decode(b)
		if err != nil {
			return zonecert.Grant{}, fmt.Errorf("%s: a certificate from the manager: %w", req.Op, err)
		}
		g.Certs = append(g.Certs, c)
	}
	for _, p := range a.Peers {
		ai, err := p.AddrInfo()
		if err != nil {
			nw.log.Debug("A holder's addresses from the manager refused", "err", err)
			continue
		}
		g.Peers = append(g.Peers, ai)
	}
	return g, nil
}

var _ zonecert.Authority = zoneAuthority{}
