package app

import (
	"context"
	"net"
	"slices"
	"testing"
)

// TestHostAddrs: a claim reports the addresses its host resolves to: an
// address host is its own, a name is looked up, and a name that does not
// resolve reports none.
func TestHostAddrs(t *testing.T) {
	ctx := context.Background()
	if got := hostAddrs(ctx, net.DefaultResolver, "127.0.1.5:8080"); !slices.Equal(got, []string{"127.0.1.5"}) {
		t.Errorf("address host: %q", got)
	}
	if got := hostAddrs(ctx, net.DefaultResolver, "[::ffff:192.0.2.1]:80"); !slices.Equal(got, []string{"192.0.2.1"}) {
		t.Errorf("mapped address host: %q", got)
	}
	if got := hostAddrs(ctx, net.DefaultResolver, "localhost:80"); !slices.Contains(got, "127.0.0.1") && !slices.Contains(got, "::1") {
		t.Errorf("localhost resolved to %q", got)
	}
	if got := hostAddrs(ctx, net.DefaultResolver, "no-such-host.invalid"); len(got) != 0 {
		t.Errorf("a name that does not resolve gave %q", got)
	}
}
