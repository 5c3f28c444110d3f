package host

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	ma "github.com/multiformats/go-multiaddr"
)

// PortInUseError is New's error when the port of a listen address is
// taken, by another program or another Hivecrawl. libp2p would only
// report it among the errors of every address, in its own words.
type PortInUseError struct {
	Addr    string // the listen multiaddr
	Network string // "tcp" or "udp"
	Port    int
	Err     error
}

// Error implements error.
func (e *PortInUseError) Error() string {
	return fmt.Sprintf("%s port %d is in use (listen address %s)", e.Network, e.Port, e.Addr)
}

// Unwrap returns the listen error (syscall.EADDRINUSE).
func (e *PortInUseError) Unwrap() error { return e.Err }

// checkPorts tries each listen address's IP and port with a socket
// closed at once, and returns a *PortInUseError for the first whose port
// is taken. Addresses it cannot read, ports 0 and other errors are left
// to libp2p.
func checkPorts(addrs []string) error {
	for _, a := range addrs {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			continue
		}
		ip, family := "", ""
		if v, err := m.ValueForProtocol(ma.P_IP4); err == nil {
			ip, family = v, "4"
		} else if v, err := m.ValueForProtocol(ma.P_IP6); err == nil {
			ip, family = v, "6"
		} else {
			continue
		}
		network := "tcp"
		port, err := m.ValueForProtocol(ma.P_TCP)
		if err != nil {
			network = "udp"
			if port, err = m.ValueForProtocol(ma.P_UDP); err != nil {
				continue
			}
		}
		n, err := strconv.Atoi(port)
		if err != nil || n == 0 {
			continue
		}
		hostPort := net.JoinHostPort(ip, port)
		if network == "tcp" {
			var l net.Listener
			if l, err = net.Listen("tcp"+family, hostPort); err == nil {
				l.Close()
			}
		} else {
			var c net.PacketConn
			if c, err = net.ListenPacket("udp"+family, hostPort); err == nil {
				c.Close()
			}
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			return &PortInUseError{Addr: a, Network: network, Port: n, Err: err}
		}
	}
	return nil
}
