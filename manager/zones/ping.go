package zones

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/ping"
)

// PingTimeout bounds a liveness check by Ping.
const PingTimeout = 5 * time.Second

// Ping returns a liveness check for Options.Live: one round of libp2p's
// ping protocol from h to the suspect, over the connection h has to it or
// a new one (a suspect renewing with another manager sharing the database
// has none to this one), within timeout (0 = PingTimeout).
func Ping(h host.Host, timeout time.Duration) func(ctx context.Context, id peer.ID) error {
	if timeout <= 0 {
		timeout = PingTimeout
	}
	return func(ctx context.Context, id peer.ID) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		select {
		case res := <-ping.Ping(ctx, h, id):
			if res.Error != nil {
				return fmt.Errorf("ping %s: %w", id, res.Error)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("ping %s: %w", id, ctx.Err())
		}
	}
}
