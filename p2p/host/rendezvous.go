package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/discovery"
	"github.com/libp2p/go-libp2p/core/peer"
)

// OverlayRendezvous is the rendezvous string under which peers that accept
// inserts into the overlay (entry points) advertise themselves.
const OverlayRendezvous = "hivecrawl/overlay/1"

// ErrNoDHT is returned by discovery on a host built with Config.NoDHT.
var ErrNoDHT = errors.New("host runs without a DHT")

// retryAdvertise is the wait after a failed advertisement.
const retryAdvertise = 30 * time.Second

// Advertise announces this peer under ns on the DHT once and returns how long
// the announcement lasts.
func (h *Host) Advertise(ctx context.Context, ns string) (time.Duration, error) {
	if h.disc == nil {
		return 0, fmt.Errorf("advertise %s: %w", ns, ErrNoDHT)
	}
	ttl, err := h.disc.Advertise(ctx, ns)
	if err != nil {
		return 0, fmt.Errorf("advertise %s: %w", ns, err)
	}
	return ttl, nil
}

// ServeAdvertise keeps this peer announced under ns until ctx ends, renewing
// the record before it expires and retrying failures. It returns ctx's error.
func (h *Host) ServeAdvertise(ctx context.Context, ns string) error {
	return h.serveAdvertise(ctx, ns, nil)
}

// serveAdvertise is ServeAdvertise, announcing only while when (nil:
// always) holds; it looks again at each renewal or retry.
func (h *Host) serveAdvertise(ctx context.Context, ns string, when func() bool) error {
	for {
		wait := retryAdvertise
		if when == nil || when() {
			if ttl, err := h.Advertise(ctx, ns); err != nil {
				h.log.Debug("Advertisement failed", "namespace", ns, "err", err)
			} else {
				wait = 7 * ttl / 8
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// FindPeers returns up to limit peers (0 = no limit) advertised under ns,
// other than this one, with their addresses added to the peerstore.
func (h *Host) FindPeers(ctx context.Context, ns string, limit int) ([]peer.AddrInfo, error) {
	if h.disc == nil {
		return nil, fmt.Errorf("find peers under %s: %w", ns, ErrNoDHT)
	}
	var opts []discovery.Option
	if limit > 0 {
		opts = append(opts, discovery.Limit(limit+1))
	}
	ch, err := h.disc.FindPeers(ctx, ns, opts...)
	if err != nil {
		return nil, fmt.Errorf("find peers under %s: %w", ns, err)
	}
	var out []peer.AddrInfo
	for ai := range ch {
		if ai.ID == h.ID() || ai.ID == "" {
			continue
		}
		if limit > 0 && len(out) >= limit {
			continue // drain the channel so its producer ends
		}
		out = append(out, ai)
	}
	return out, nil
}
