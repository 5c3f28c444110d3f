//go:build linux

package netlab

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestSite(t *testing.T) {
	var name string
	t.Run("serve", func(t *testing.T) {
		u := Site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the namespace") }))
		if !strings.HasPrefix(u, "http://198.51.100.") {
			t.Fatalf("site at %s, want a TEST-NET-2 address", u)
		}
		resp, err := http.Get(u + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "from the namespace" {
			t.Fatalf("GET %s = %q", u, body)
		}
		out, _ := exec.Command("ip", "netns", "list").Output()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "hcnl-") {
				name = strings.Fields(l)[0]
			}
		}
	})
	if name == "" {
		t.Skip("no namespace was made")
	}
	out, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(out), name) {
		t.Fatalf("namespace %s outlived its test:\n%s", name, out)
	}
}

// TestSiteSkipsAnAddressInUse holds the next site's host address on
// another interface, as a test in another process does when packages run
// side by side, and checks that Site takes the /30 after it: with the
// address given twice, the older route won and the test's requests went
// to the other process's site.
func TestSiteSkipsAnAddressInUse(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	next := int(seq.Load()) + 1
	held := fmt.Sprintf("198.51.100.%d", 4*next+1)
	a, b := fmt.Sprintf("hcnlt%da", os.Getpid()%100000), fmt.Sprintf("hcnlt%db", os.Getpid()%100000)
	if out, err := exec.Command("ip", "link", "add", a, "type", "veth", "peer", "name", b).CombinedOutput(); err != nil {
		t.Skipf("no veth here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "link", "del", a).Run() })
	if out, err := exec.Command("ip", "addr", "add", held+"/30", "dev", a).CombinedOutput(); err != nil {
		t.Fatalf("ip addr add: %v %s", err, out)
	}
	u := Site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mine") }))
	if u == fmt.Sprintf("http://198.51.100.%d", 4*next+2) {
		t.Fatalf("site at %s, whose host address %s another interface holds", u, held)
	}
	resp, err := http.Get(u + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "mine" {
		t.Fatalf("GET %s = %q", u, body)
	}
}

// TestNATLab builds a lab with one home behind each kind of NAT and
// checks what the internet sees of each: the port-restricted NAT keeps a
// LAN port's public port for every destination, the symmetric one gives
// each flow its own, and neither lets in a connection nobody asked for.
func TestNATLab(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	ctx := t.Context()
	lab, err := Build(ctx, fmt.Sprintf("hcnt%d", os.Getpid()%100000), Plan{Public: 1, Homes: []NAT{PortRestricted, Symmetric}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Error(err)
		}
	})
	// Three web servers that answer with the address they saw.
	var webs []string
	for k := range 3 {
		ln, err := listenIn(lab.Internet, WebIP(k)+":80")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				io.WriteString(c, c.RemoteAddr().String())
				c.Close()
			}
		}()
		webs = append(webs, WebIP(k)+":80")
	}
	for _, h := range lab.Homes {
		t.Run(h.NAT.String(), func(t *testing.T) {
			const local = 40123
			var ports []string
			for _, w := range webs {
				seen := dialFrom(t, h.NS, h.IP, local, w)
				ip, port, _ := net.SplitHostPort(seen)
				if ip != h.WAN {
					t.Fatalf("%s saw %s, want the router's address %s", w, seen, h.WAN)
				}
				ports = append(ports, port)
			}
			same := ports[0] == ports[1] && ports[1] == ports[2]
			switch h.NAT {
			case PortRestricted:
				if !same || ports[0] != strconv.Itoa(local) {
					t.Fatalf("public ports %v for LAN port %d, want it kept for every destination", ports, local)
				}
			case Symmetric:
				if same {
					t.Fatalf("public port %s for three destinations, want one per flow", ports[0])
				}
			}
			// Someone else on the internet cannot come in on that port.
			d := DialerIn(lab.Internet)
			dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			if c, err := d(dctx, "tcp4", net.JoinHostPort(h.WAN, ports[0])); err == nil {
				c.Close()
				t.Fatalf("a connection from the internet to %s:%s got in", h.WAN, ports[0])
			}
		})
	}
}

// dialFrom connects from ip:port inside namespace ns to addr, with the
// port shared as libp2p shares its listening port, and returns what the
// far end answered.
func dialFrom(t *testing.T, ns, ip string, port int, addr string) string {
	t.Helper()
	d := net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip), Port: port},
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			rc.Control(func(fd uintptr) {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
			})
			return serr
		},
	}
	var (
		c   net.Conn
		err error
	)
	if nerr := inNamespace(ns, func() { c, err = d.DialContext(t.Context(), "tcp4", addr) }); nerr != nil {
		t.Fatal(nerr)
	}
	if err != nil {
		t.Fatalf("dial %s from %s:%d: %v", addr, ip, port, err)
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
