package testport

import (
	"fmt"
	"net"
	"testing"
)

// TestFixed: the port is out of the range port 0 draws from, and free.
func TestFixed(t *testing.T) {
	for range 20 {
		port := Fixed(t)
		if port < 10000 || port > 29999 {
			t.Fatalf("port %d, want 10000–29999", port)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatalf("port %d is not free: %v", port, err)
		}
		ln.Close()
	}
}
