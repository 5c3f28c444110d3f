package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
)

// TestNewSaysWhichPortIsTaken checks that a host whose listen port is
// taken fails with a PortInUseError naming the port, for the command to
// say which flag changes it.
func TestNewSaysWhichPortIsTaken(t *testing.T) {
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := tcp.Addr().(*net.TCPAddr).Port
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	for _, tc := range []struct {
		name    string
		addrs   []string
		network string
		port    int
	}{
		{"tcp", []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", tcpPort)}, "tcp", tcpPort},
		{"quic", []string{"/ip4/127.0.0.1/tcp/0", fmt.Sprintf("/ip4/127.0.0.1/udp/%d/quic-v1", udpPort)}, "udp", udpPort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := New(context.Background(), Config{ListenAddrs: tc.addrs, Logger: quiet, NoDHT: true})
			if err == nil {
				h.Close()
				t.Fatal("New listened on a port in use")
			}
			var pe *PortInUseError
			if !errors.As(err, &pe) || pe.Network != tc.network || pe.Port != tc.port || !errors.Is(err, syscall.EADDRINUSE) {
				t.Fatalf("New = %v, want a PortInUseError for %s port %d", err, tc.network, tc.port)
			}
			if want := fmt.Sprintf("%s port %d is in use", tc.network, tc.port); err.Error() != "new host: "+want+" (listen address "+pe.Addr+")" {
				t.Fatalf("New = %q", err)
			}
		})
	}
}
