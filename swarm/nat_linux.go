//go:build linux

package swarm

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/swarm/netlab"
)

// natLab is the lab a NAT swarm runs in.
type natLab = netlab.Lab

// buildLab builds the lab for cfg.NAT: one public address for the
// manager and one per public client, and a home per other client.
func (s *Swarm) buildLab(ctx context.Context) error {
	n := *s.cfg.NAT
	homes := s.cfg.Peers - n.Public
	if n.Public < 0 || homes < 0 || n.Symmetric < 0 || n.Symmetric > homes {
		return fmt.Errorf("NAT lab: %d public and %d symmetric of %d clients", n.Public, n.Symmetric, s.cfg.Peers)
	}
	kinds := make([]netlab.NAT, homes)
	for i := homes - n.Symmetric; i < homes; i++ {
		kinds[i] = netlab.Symmetric
	}
	lab, err := netlab.Build(ctx, fmt.Sprintf("hcs%d", os.Getpid()), netlab.Plan{Public: 1 + n.Public, Homes: kinds})
	if err != nil {
		return err
	}
	s.lab = lab
	s.http = s.httpAt(place{ns: lab.Internet})
	return nil
}

// webPlace, managerPlace and clientPlace say where each process runs:
// on the machine's loopback, or in the lab.
func (s *Swarm) webPlace() place {
	if s.lab == nil {
		return place{}
	}
	return place{ns: s.lab.Internet}
}

func (s *Swarm) managerPlace() place {
	if s.lab == nil {
		return place{ip: "127.0.0.1"}
	}
	return place{ns: s.lab.Internet, ip: s.lab.Public[0]}
}

func (s *Swarm) clientPlace(i int) place {
	if s.lab == nil {
		return place{ip: ClientIP(i)}
	}
	if i < s.cfg.NAT.Public {
		return place{ns: s.lab.Internet, ip: s.lab.Public[1+i]}
	}
	h := s.lab.Homes[i-s.cfg.NAT.Public]
	return place{ns: h.NS, ip: h.IP}
}

// hostIP is the web's k-th address (web host k's when every host has an
// address of its own).
func (s *Swarm) hostIP(k int) string {
	if s.lab == nil {
		return HostIP(k)
	}
	return netlab.WebIP(k)
}

// natOf names the NAT in front of client i, "" for none.
func (s *Swarm) natOf(i int) string {
	if s.lab == nil || i < s.cfg.NAT.Public {
		return ""
	}
	return s.lab.Homes[i-s.cfg.NAT.Public].NAT.String()
}

func dialIn(ns string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return netlab.DialerIn(ns)
}

// LinksError says which CAN neighbours are not linked as their places in
// the NAT lab allow: two homes behind port-restricted NATs by a hole-punched
// connection, homes with a symmetric NAT between them through a relay,
// and anyone to a public peer directly; and every client must be an
// overlay member. It also fails while no pair of
// port-restricted homes are neighbours, so that hole punching is tried.
func (s *Swarm) LinksError(ctx context.Context) error {
	byPeer := map[string]*Client{}
	neighbours := map[*Client]map[string]string{} // peer → link
	for _, c := range s.Clients {
		st, err := c.Status(ctx)
		if err != nil {
			return err
		}
		if st.Overlay == nil || !st.Overlay.Member {
			return fmt.Errorf("%s is not an overlay member", c.Name)
		}
		byPeer[st.Overlay.Peer] = c
		neighbours[c] = map[string]string{}
		for _, nb := range st.Overlay.Neighbours {
			neighbours[c][nb.Peer] = nb.Link
		}
	}
	punchable := 0
	for _, c := range s.Clients { // in order, so that a wait reports the same pair
		nbs := neighbours[c]
		for _, p := range slices.Sorted(maps.Keys(nbs)) {
			link := nbs[p]
			o, ok := byPeer[p]
			if !ok {
				continue // the manager is no CAN neighbour; a gone peer is not ours to judge
			}
			want := host.LinkDirect
			switch {
			case c.NAT == netlab.PortRestricted.String() && o.NAT == netlab.PortRestricted.String():
				want = host.LinkHolePunched
				punchable++
			case c.NAT != "" && o.NAT != "":
				want = host.LinkRelayed
			}
			if link != want {
				return fmt.Errorf("%s (%s) and its neighbour %s (%s) are linked %q, want %q", c.Name, natName(c.NAT), o.Name, natName(o.NAT), link, want)
			}
		}
	}
	if punchable == 0 {
		return fmt.Errorf("no two homes behind port-restricted NATs are neighbours")
	}
	return nil
}

func natName(nat string) string {
	if nat == "" {
		return "public"
	}
	return nat
}
