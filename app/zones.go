package app

import (
	"context"

	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// zoneAuthority is the manager's map of zones as the node reaches it: the
// entry protocol's operations (proto/entry). Every request reports this
// member's coordinate and capacity, as a renewal always has, and every
// answer brings the manager's word on this client's version and the
// trained bounds (askOnce).
type zoneAuthority struct{ nw *network }

func (za zoneAuthority) Zones(ctx context.Context, req zonecert.Request) (zonecert.Grant, error) {
	r := entry.RequestFor(req)
	a, err := za.nw.ask(ctx, r)
	if err != nil {
		return zonecert.Grant{}, err
	}
	return entry.GrantOf(r.Op, a)
}

var _ zonecert.Authority = zoneAuthority{}
