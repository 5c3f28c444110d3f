package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

var errForbidden = errors.New("forbidden")

func TestControl(t *testing.T) {
	cases := []struct {
		name, addr    string
		allowLoopback bool
		ok            bool
	}{
		{"public v4", "93.184.216.34:80", false, true},
		{"loopback refused", "127.0.0.1:80", false, false},
		{"loopback allowed by switch", "127.0.0.1:80", true, true},
		{"private stays refused with switch", "10.0.0.1:80", true, false},
		{"link-local", "169.254.169.254:80", false, false},
		{"v6 loopback allowed by switch", "[::1]:443", true, true},
		{"unspecified", "0.0.0.0:80", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Control(Allowing(c.allowLoopback, false), errForbidden)("tcp4", c.addr, nil)
			if c.addr[0] == '[' {
				err = Control(Allowing(c.allowLoopback, false), errForbidden)("tcp6", c.addr, nil)
			}
			if c.ok && err != nil {
				t.Fatalf("refused %s: %v", c.addr, err)
			}
			if !c.ok && !errors.Is(err, errForbidden) {
				t.Fatalf("%s: err = %v, want forbidden", c.addr, err)
			}
		})
	}
}

func TestCheckAgreesWithControl(t *testing.T) {
	for _, addr := range []string{"93.184.216.34", "127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "2606:4700::1111", "fe80::1", "::ffff:127.0.0.1", "0.0.0.0"} {
		for _, allow := range []bool{false, true} {
			ip := netip.MustParseAddr(addr)
			network := "tcp4"
			if !ip.Unmap().Is4() {
				network = "tcp6"
			}
			dialErr := Control(Allowing(allow, false), errForbidden)(network, netip.AddrPortFrom(ip.Unmap(), 443).String(), nil)
			checkErr := Check(ip, Allowing(allow, false))
			if (dialErr == nil) != (checkErr == nil) {
				t.Errorf("%s (loopback allowed %v): Check says %v, the dialler %v", addr, allow, checkErr, dialErr)
			}
		}
	}
	if Check(netip.MustParseAddr("::ffff:127.0.0.1"), 0) == nil {
		t.Error("a v4-mapped loopback address passed")
	}
}

func TestTestNets(t *testing.T) {
	cases := []struct {
		addr  string
		allow Allow
		ok    bool
	}{
		{"198.51.100.6", 0, false},
		{"198.51.100.6", AllowTestNets, true},
		{"192.0.2.1", AllowTestNets, true},
		{"203.0.113.9", AllowTestNets, true},
		{"2001:db8::1", AllowTestNets, true},
		{"127.0.0.1", AllowTestNets, false},
		{"10.0.0.1", AllowTestNets | AllowLoopback, false},
		{"127.0.0.1", AllowTestNets | AllowLoopback, true},
		{"198.51.100.6", AllowLoopback, false},
	}
	for _, c := range cases {
		if err := Check(netip.MustParseAddr(c.addr), c.allow); (err == nil) != c.ok {
			t.Errorf("Check(%s, %b) = %v, want ok %v", c.addr, c.allow, err, c.ok)
		}
	}
}

// TestMachineName: localhost and the names under it name this machine,
// in any case and with a trailing dot; other names do not; the loopback
// switch lets them through.
func TestMachineName(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost.": true, "app.localhost": true, "a.b.LOCALHOST": true,
		"example.org": false, "localhost.example": false, "notlocalhost": false, "": false,
	} {
		if got := MachineName(host, 0); got != want {
			t.Errorf("MachineName(%q) = %v, want %v", host, got, want)
		}
	}
	if MachineName("localhost", AllowLoopback) {
		t.Error("localhost refused with loopback allowed")
	}
	if !MachineName("localhost", AllowTestNets) {
		t.Error("localhost allowed by the test nets switch")
	}
}
