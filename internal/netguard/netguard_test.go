package netguard

import (
	"errors"
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
			err := Control(c.allowLoopback, errForbidden)("tcp4", c.addr, nil)
			if c.addr[0] == '[' {
				err = Control(c.allowLoopback, errForbidden)("tcp6", c.addr, nil)
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
