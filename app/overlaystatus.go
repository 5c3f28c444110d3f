package app

import (
	"sort"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// status returns the overlay part of the client's status.
func (nw *network) status(mode Mode) *localapi.Overlay {
	v := nw.node.View()
	o := &localapi.Overlay{
		Mode: string(mode), Network: nw.prof.Name, Peer: nw.h.ID().String(), Manager: nw.manager.String(),
		Addrs:  nw.h.P2PAddrs(),
		Member: nw.member.Load() && len(v.Zones) > 0, ManagerSilent: nw.silentSince.Load() != nil, Peers: len(nw.h.Network().Peers()),
		Zones: apiZones(v.Zones), Coordinate: v.Coordinate.Vec, Mapped: v.Mapped, BoundsEpoch: v.BoundsEpoch, Moves: v.Stats.Moves, Drifts: v.Stats.Drifts(),
		RTL: v.Load.RTL, RPL: v.Load.RPL,
		Neighbours: []localapi.Neighbour{},
		Accepted:   v.Stats.Accepted, Forwarded: v.Stats.Forwarded, Refused: v.Stats.Invalid,
		HandedIn: v.Stats.HandedIn, Shared: v.Stats.Shared, Reports: v.Stats.Reports,
		NAT: localapi.NAT(nw.h.NAT()),
	}
	if bw := nw.h.Bandwidth; bw != nil {
		t := bw.GetBandwidthTotals()
		o.BytesIn, o.BytesOut = t.TotalIn, t.TotalOut
	}
	for _, nb := range v.Neighbours {
		o.Neighbours = append(o.Neighbours, localapi.Neighbour{
			Peer: nb.ID.String(), Zones: apiZones(nb.Zones), RTL: nb.Load.RTL, RPL: nb.Load.RPL,
			Link: nw.h.Link(nb.ID),
		})
	}
	sort.Slice(o.Neighbours, func(i, j int) bool { return o.Neighbours[i].Peer < o.Neighbours[j].Peer })
	return o
}

func apiZones(zs []can.Zone) []localapi.Zone {
	out := make([]localapi.Zone, len(zs))
	for i, z := range zs {
		out[i] = localapi.Zone{Lo: z.Lo, Hi: z.Hi}
	}
	return out
}
