package site

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/keptport"
)

// Kept says where the site server listens. Volunteers name its origin in
// every signed request, so the address is kept across restarts.
type Kept struct {
	// Addr, when set, is the address to listen on, as the operator named
	// it; nothing is kept.
	Addr string
	// File keeps the address chosen when Addr is "": read at a restart,
	// written after the first start.
	File string
	// Listen are the manager's libp2p listen multiaddrs: the first one's
	// IP is where a first start listens (every interface without one).
	Listen []string
}

// OpenKept opens the server name serving h where k says: k.Addr, else
// the address kept in k.File, else a port below the ephemeral range on
// the first listen address's IP (internal/keptport, so no other socket
// is given it while the manager is down), which it then keeps in k.File.
func OpenKept(name string, k Kept, h http.Handler) (*Server, error) {
	addr, remember, err := k.addr()
	if err != nil {
		return nil, err
	}
	if !remember {
		srv, err := Listen(name, addr, h)
		if err != nil && k.Addr == "" {
			err = fmt.Errorf("%w (the address kept in %s: remove that file to choose another port, or name one with --directory)", err, k.File)
		}
		return srv, err
	}
	host, _, _ := net.SplitHostPort(addr)
	ln, err := keptport.Listen(host)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	srv := On(name, ln, h)
	if err := atomicfile.WriteFile(k.File, []byte(srv.Addr().String()+"\n"), 0o600); err != nil {
		srv.Close()
		return nil, fmt.Errorf("keep the %s's address: %w", name, err)
	}
	return srv, nil
}

// addr is where to listen: Addr, else the address kept in File, else
// (remember) the first listen address's IP with a port to choose.
func (k Kept) addr() (addr string, remember bool, err error) {
	if k.Addr != "" {
		return k.Addr, false, nil
	}
	b, err := os.ReadFile(k.File)
	switch {
	case err == nil:
		kept := strings.TrimSpace(string(b))
		if _, err := netip.ParseAddrPort(kept); err != nil {
			return "", false, fmt.Errorf("%s holds %q, not an address: remove it to choose another", k.File, kept)
		}
		return kept, false, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", false, err
	}
	ip := "0.0.0.0"
	for _, s := range k.Listen {
		a, err := ma.NewMultiaddr(s)
		if err != nil {
			continue
		}
		if v, err := a.ValueForProtocol(ma.P_IP4); err == nil {
			ip = v
			break
		}
		if v, err := a.ValueForProtocol(ma.P_IP6); err == nil {
			ip = v
			break
		}
	}
	return net.JoinHostPort(ip, "0"), true, nil
}

// PublicOrigin is the server's origin as sites reach it: its listen
// address, or, when that is every interface, the first of addrs (the
// manager's libp2p addresses) that is not loopback IPv4, loopback when
// there is none.
func (s *Server) PublicOrigin(addrs []ma.Multiaddr) string {
	ap, err := netip.ParseAddrPort(s.Addr().String())
	if err != nil {
		return s.Origin()
	}
	ip := ap.Addr().Unmap()
	if ip.IsUnspecified() {
		ip = netip.MustParseAddr("127.0.0.1")
		for _, a := range addrs {
			v, err := a.ValueForProtocol(ma.P_IP4)
			if err != nil {
				continue
			}
			if cand, err := netip.ParseAddr(v); err == nil && !cand.IsLoopback() {
				ip = cand
				break
			}
		}
	}
	return "http://" + netip.AddrPortFrom(ip, ap.Port()).String()
}
