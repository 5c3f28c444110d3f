// Package testport gives tests a port on 127.0.0.1 for a program that
// binds a port by number itself, such as a configured dashboard port or a
// port meant to refuse connections.
//
// A test that needs a listener should listen on port 0 and pass the
// listener or its address on: it owns the port. Only when the program
// under test must bind a given number itself (at each start, or never)
// can the test not hold the port meanwhile; a port the system picked for
// port 0 and the test closed could then be handed to any other process
// (another test's listener, an outgoing connection) before the program
// binds it, which on a busy machine happens. Fixed takes the port from
// 10000–29999, below the range Linux hands out for port 0 and outgoing
// connections (32768 and up by default), so only a process asking for
// that very number can take it.
package testport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
)

// Fixed returns a TCP port on 127.0.0.1, free when it returns, from
// 10000–29999 (see the package doc).
func Fixed(t testing.TB) int {
	t.Helper()
	for range 100 {
		port := 10000 + rand.IntN(20000)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		if err := ln.Close(); err != nil {
			t.Fatalf("close the probe of port %d: %v", port, err)
		}
		return port
	}
	t.Fatal("no free TCP port on 127.0.0.1 between 10000 and 29999")
	return 0
}
