//go:build linux

package netlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// NAT is the kind of home router in front of a volunteer.
type NAT int

const (
	// PortRestricted is Linux's MASQUERADE: a LAN port keeps its public
	// port whatever it sends to (endpoint-independent mapping), and only
	// an address and port the LAN side sent to may answer (port-restricted
	// filtering), the common home router. Hole punching gets through it.
	PortRestricted NAT = iota
	// Symmetric gives every new flow a random public port (MASQUERADE
	// --random-fully): the address one peer observes is not one another
	// peer can reach, so between two such homes only a relay works.
	Symmetric
)

func (n NAT) String() string {
	switch n {
	case PortRestricted:
		return "port-restricted"
	case Symmetric:
		return "symmetric"
	}
	return fmt.Sprintf("NAT(%d)", int(n))
}

// The lab's address plan. The "internet" is TEST-NET-2 (RFC 5737), the
// web hosts TEST-NET-3, and each home's LAN a /24 of the benchmarking
// range (RFC 2544), so no address is one the machine could route
// anywhere else.
const (
	// InternetNet holds the gateway (.1), the public addresses (.10 on)
	// and the routers' WAN addresses (.100 on).
	InternetNet = "198.51.100.0/24"
	// WebNet is local in the internet namespace: any of its addresses can
	// be bound there, one per web host.
	WebNet = "203.0.113.0/24"
	// MaxPublic and MaxHomes bound a lab's size by its address plan.
	MaxPublic = 80
	MaxHomes  = 100
)

// WebIP returns web host k's address in WebNet (k < 254).
func WebIP(k int) string { return fmt.Sprintf("203.0.113.%d", 1+k) }

// Plan describes a lab.
type Plan struct {
	// Public is how many public addresses the internet namespace holds,
	// for the manager and the volunteers that are not behind a NAT.
	Public int
	// Homes lists each home's router: one volunteer behind each.
	Homes []NAT
}

// Home is one home: a router namespace with a NAT and a volunteer's
// namespace behind it.
type Home struct {
	NAT NAT
	// Router and NS are the router's and the volunteer's namespaces.
	Router, NS string
	// WAN is the router's public address; IP the volunteer's LAN address.
	WAN, IP string
}

// Lab is a small internet built out of network namespaces: one
// namespace ("the internet") holds the public addresses and the web;
// each home is a router namespace doing NAT with a volunteer's namespace
// behind it. Nothing is connected to the machine's own network.
type Lab struct {
	// Internet is the namespace of the public addresses and the web.
	Internet string
	// Public are the public addresses, in the order of Plan.Public.
	Public []string
	Homes  []Home
	spaces []string // every namespace made, for Close
}

// Available reports why a lab cannot be built here, or nil: it needs
// root, the ip command (iproute2) and iptables.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("netlab: a NAT lab needs root to make network namespaces")
	}
	for _, cmd := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return fmt.Errorf("netlab: a NAT lab needs the %s command (Debian's iproute2 and iptables)", cmd)
		}
	}
	return nil
}

// Build makes the lab's namespaces, links, addresses and NATs. name
// prefixes the namespaces (short, unique on the machine: a process ID
// will do). On error whatever was made is removed again.
func Build(ctx context.Context, name string, p Plan) (*Lab, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if p.Public < 0 || p.Public > MaxPublic || len(p.Homes) > MaxHomes {
		return nil, fmt.Errorf("netlab: at most %d public addresses and %d homes", MaxPublic, MaxHomes)
	}
	l := &Lab{Internet: name + "-net"}
	if err := l.build(ctx, p); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	return l, nil
}

func (l *Lab) build(ctx context.Context, p Plan) error {
	inet := l.Internet
	if err := l.addNS(ctx, inet); err != nil {
		return err
	}
	steps := [][]string{
		{"-n", inet, "link", "add", "br0", "type", "bridge"},
		{"-n", inet, "link", "set", "br0", "up"},
		{"-n", inet, "addr", "add", "198.51.100.1/24", "dev", "br0"},
		// Every web address is local here, so each web host binds its own.
		{"-n", inet, "route", "add", "local", WebNet, "dev", "lo"},
	}
	for i := range p.Public {
		ip := fmt.Sprintf("198.51.100.%d", 10+i)
		l.Public = append(l.Public, ip)
		steps = append(steps, []string{"-n", inet, "addr", "add", ip + "/24", "dev", "br0"})
	}
	if err := ipSteps(ctx, steps); err != nil {
		return err
	}
	for i, nat := range p.Homes {
		if err := l.addHome(ctx, i+1, nat); err != nil {
			return err
		}
	}
	return nil
}

// addHome makes home n: its router with a WAN link on the internet's
// bridge and a LAN link to the volunteer's namespace, and the router's
// NAT.
func (l *Lab) addHome(ctx context.Context, n int, nat NAT) error {
	h := Home{
		NAT:    nat,
		Router: fmt.Sprintf("%s-r%d", strings.TrimSuffix(l.Internet, "-net"), n),
		NS:     fmt.Sprintf("%s-h%d", strings.TrimSuffix(l.Internet, "-net"), n),
		WAN:    fmt.Sprintf("198.51.100.%d", 100+n),
		IP:     fmt.Sprintf("198.18.%d.2", n),
	}
	for _, ns := range []string{h.Router, h.NS} {
		if err := l.addNS(ctx, ns); err != nil {
			return err
		}
	}
	wan := fmt.Sprintf("w%d", n)
	gw := fmt.Sprintf("198.18.%d.1", n)
	err := ipSteps(ctx, [][]string{
		{"-n", h.Router, "link", "add", "wan", "type", "veth", "peer", "name", wan, "netns", l.Internet},
		{"-n", l.Internet, "link", "set", wan, "master", "br0"},
		{"-n", l.Internet, "link", "set", wan, "up"},
		{"-n", h.Router, "addr", "add", h.WAN + "/24", "dev", "wan"},
		{"-n", h.Router, "link", "set", "wan", "up"},
		{"-n", h.Router, "route", "add", "default", "via", "198.51.100.1"},
		{"-n", h.Router, "link", "add", "lan", "type", "veth", "peer", "name", "eth0", "netns", h.NS},
		{"-n", h.Router, "addr", "add", gw + "/24", "dev", "lan"},
		{"-n", h.Router, "link", "set", "lan", "up"},
		{"-n", h.NS, "addr", "add", h.IP + "/24", "dev", "eth0"},
		{"-n", h.NS, "link", "set", "eth0", "up"},
		{"-n", h.NS, "route", "add", "default", "via", gw},
	})
	if err != nil {
		return err
	}
	masq := []string{"-t", "nat", "-A", "POSTROUTING", "-o", "wan", "-j", "MASQUERADE"}
	if nat == Symmetric {
		masq = append(masq, "--random-fully")
	}
	for _, args := range [][]string{
		{"sysctl", "-qw", "net.ipv4.ip_forward=1"},
		append([]string{"iptables", "-w"}, masq...),
		// Nothing from outside reaches the LAN unless it answers a flow
		// the LAN side started.
		{"iptables", "-w", "-A", "FORWARD", "-i", "wan", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"},
		{"iptables", "-w", "-A", "FORWARD", "-i", "wan", "-j", "DROP"},
		// Nor the router itself, as a home router's firewall: a packet
		// to its WAN address that answers nothing is dropped before
		// conntrack keeps its flow. Kept, that flow would hold the public
		// port the LAN side is about to send from, and the NAT would
		// give the LAN side's packet another port: the first packet of a
		// hole punch, arriving before the other end's, would spoil the
		// punch.
		{"iptables", "-w", "-A", "INPUT", "-i", "wan", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"},
		{"iptables", "-w", "-A", "INPUT", "-i", "wan", "-j", "DROP"},
	} {
		if err := run(ctx, append([]string{"ip", "netns", "exec", h.Router}, args...)); err != nil {
			return err
		}
	}
	l.Homes = append(l.Homes, h)
	return nil
}

// addNS makes namespace ns with its loopback up.
func (l *Lab) addNS(ctx context.Context, ns string) error {
	if err := run(ctx, []string{"ip", "netns", "add", ns}); err != nil {
		return err
	}
	l.spaces = append(l.spaces, ns)
	return run(ctx, []string{"ip", "-n", ns, "link", "set", "lo", "up"})
}

// Close removes every namespace the lab made; the links and NAT rules go
// with them.
func (l *Lab) Close() error {
	var errs []error
	for i := len(l.spaces) - 1; i >= 0; i-- {
		if out, err := exec.Command("ip", "netns", "del", l.spaces[i]).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("netlab: remove %s: %v: %s", l.spaces[i], err, strings.TrimSpace(string(out))))
		}
	}
	l.spaces = nil
	return errors.Join(errs...)
}

// DialerIn returns a dial function (for http.Transport.DialContext) whose
// connections are made inside namespace ns: a process's local API on
// 127.0.0.1 there is reached this way.
func DialerIn(ns string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var (
			c   net.Conn
			err error
		)
		if nerr := inNamespace(ns, func() { c, err = new(net.Dialer).DialContext(ctx, network, addr) }); nerr != nil {
			return nil, nerr
		}
		return c, err
	}
}

// ipSteps runs each ip command in turn.
func ipSteps(ctx context.Context, steps [][]string) error {
	for _, s := range steps {
		if err := run(ctx, append([]string{"ip"}, s...)); err != nil {
			return err
		}
	}
	return nil
}

func run(ctx context.Context, args []string) error {
	if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("netlab: %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
