package entry

import (
	"context"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// ErrOutdated is wrapped by Grant's error when the manager gives the
// asker's version no zone (Answer.Outdated).
var ErrOutdated = errors.New("the manager gives this version no zone")

// Grant asks the manager for an operation on the asker's zones (req.Op
// set) and returns the certificates and holders' addresses it answered
// with, and the whole answer; see GrantOf.
func Grant(ctx context.Context, h Host, manager peer.ID, req Request) (zonecert.Grant, Answer, error) {
	a, err := Ask(ctx, h, manager, req)
	if err != nil {
		return zonecert.Grant{}, a, err
	}
	g, err := GrantOf(req.Op, a)
	return g, a, err
}

// GrantOf reads the manager's answer to operation op. A refusal is an
// error: one wrapping zonecert.ErrRejoin when the manager holds no zone
// for the asker, zonecert.ErrTooDeep when the zone at its point cannot
// split, ErrOutdated when it gives the asker's version none.
// Certificates are decoded, not checked: the node's book checks them.
func GrantOf(op string, a Answer) (zonecert.Grant, error) {
	switch {
	case a.Outdated != "" && op != OpLeave:
		// A leave is answered all the same: the peer hands its tasks to
		// its heirs.
		return zonecert.Grant{}, fmt.Errorf("%s: %w: %s", op, ErrOutdated, a.Outdated)
	case a.Refused == RefusedJoinAgain:
		return zonecert.Grant{}, fmt.Errorf("%s: %w", op, zonecert.ErrRejoin)
	case a.Refused == RefusedTooDeep:
		return zonecert.Grant{}, fmt.Errorf("%s: %w", op, zonecert.ErrTooDeep)
	case a.Refused != "":
		return zonecert.Grant{}, fmt.Errorf("the manager refused to %s: %s", op, a.Refused)
	}
	var g zonecert.Grant
	for _, b := range a.Certs {
		c, err := zonecert.Decode(b)
		if err != nil {
			return zonecert.Grant{}, fmt.Errorf("%s: a certificate in the answer: %w", op, err)
		}
		g.Certs = append(g.Certs, c)
	}
	for _, p := range a.Peers {
		if ai, err := p.AddrInfo(); err == nil {
			g.Peers = append(g.Peers, ai)
		}
	}
	return g, nil
}

// Client is the manager's zone map as a peer reaches it over this
// protocol: a zonecert.Authority. The client program wraps Grant itself,
// to report its coordinate and heed the manager's word on its version;
// Client serves tests and tools.
type Client struct {
	Host    Host
	Manager peer.ID
	// Version is the release stated to the manager (Request.Version).
	Version string
}

// Zones implements zonecert.Authority.
func (c Client) Zones(ctx context.Context, req zonecert.Request) (zonecert.Grant, error) {
	r := RequestFor(req)
	r.Version = c.Version
	g, _, err := Grant(ctx, c.Host, c.Manager, r)
	return g, err
}

// RequestFor is a member's entry request for a zone operation.
func RequestFor(req zonecert.Request) Request {
	r := Request{Op: string(req.Op), Point: req.Point}
	if req.Suspect != "" {
		r.Suspect = req.Suspect.String()
	}
	return r
}

var _ zonecert.Authority = Client{}
