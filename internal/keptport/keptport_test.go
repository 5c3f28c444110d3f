package keptport

import (
	"net"
	"testing"
)

// TestListenBelowEphemeral: the port is below the ephemeral range, and
// free: the listener accepts.
func TestListenBelowEphemeral(t *testing.T) {
	ln, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if low := ephemeralLow(); port >= low || port < 1024 {
		t.Fatalf("port %d, want one from 1024 to below the ephemeral range's %d", port, low)
	}
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
