// Package keptport picks a TCP port to keep across restarts: a free one
// below the system's ephemeral range (net.ipv4.ip_local_port_range), which
// the system gives to no socket that does not ask for it by number, so
// no outgoing connection or listener on port 0 takes it while its owner
// is down. A port picked from the ephemeral range was lost that way
// during a manager's five minutes down (swarm TestManagerDown).
//
// Caveat: two programs picking ports this way may pick the same one; with
// about 10,000 candidates that is unlikely, and the second listen fails.
package keptport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// ephemeralLow is the lowest ephemeral port, 32768 when the system does
// not say.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 2048 {
			return n
		}
	}
	return 32768
}

// Listen listens on ip at a free port below the ephemeral range.
func Listen(ip string) (net.Listener, error) {
	low := ephemeralLow()
	first := max(1024, low-10000)
	var last error
	for range 100 {
		port := first + rand.IntN(low-first)
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
		if err == nil {
			return ln, nil
		}
		last = err
	}
	return nil, fmt.Errorf("no free port on %s from %d to %d: %w", ip, first, low-1, last)
}

// Free returns a port below the ephemeral range that was free on ip a
// moment ago, for a program started after that to listen on.
func Free(ip string) (int, error) {
	ln, err := Listen(ip)
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
