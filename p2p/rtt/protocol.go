package rtt

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// maxMicros is the largest median a response may carry (wire's limit).
const maxMicros = 60_000_000

// Handler returns the stream handler of wire.MeasureProtocol: it measures the
// requested host with m and answers with the median and, when self is not
// nil, this peer's current coordinate. When asker is not nil, only the
// peers it allows are answered; the others' streams are reset unread: a
// measurement opens connections to a host the asker names, outside any
// lease and politeness clock, so a volunteer takes such requests from its
// manager alone.
func Handler(m *Measurer, self func() coord.Coord, asker func(peer.ID) bool, log *slog.Logger) network.StreamHandler {
	return func(s network.Stream) {
		if asker != nil && !asker(s.Conn().RemotePeer()) {
			log.Debug("Measure request refused: not from the manager", "peer", s.Conn().RemotePeer())
			s.Reset()
			return
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.Timeout+wire.DefaultTimeout)
		defer cancel()
		c := wire.NewConn(s, wire.MaxMeasureRequestSize)
		var req wire.MeasureRequest
		if err := c.Read(ctx, &req); err != nil {
			log.Debug("Measure request refused", "peer", s.Conn().RemotePeer(), "err", err)
			s.Reset()
			return
		}
		resp := &wire.MeasureResponse{}
		if self != nil {
			resp.Coord = wire.CoordinateOf(self())
		}
		res, err := m.Measure(ctx, req.HostPort, int(req.Samples))
		switch {
		case err != nil:
			resp.Error = truncate(err.Error(), wire.MaxErrorLen)
		default:
			resp.MedianMicros = uint64(max(1, min(res.Median.Microseconds(), maxMicros)))
			resp.Samples = uint32(len(res.Samples))
		}
		if err := c.Write(ctx, resp, wire.MaxMeasureResponseSize); err != nil {
			log.Debug("Measure response not sent", "peer", s.Conn().RemotePeer(), "err", err)
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// StreamOpener opens a stream to a peer; a libp2p host is one.
type StreamOpener = wire.Opener

// Ask asks peer p to measure hostPort and returns its answer. A measurement
// the peer could not make is returned as an error naming the peer.
func Ask(ctx context.Context, h StreamOpener, p peer.ID, hostPort string, samples int) (*wire.MeasureResponse, error) {
	var resp wire.MeasureResponse
	req := &wire.MeasureRequest{HostPort: hostPort, Samples: uint32(max(0, min(samples, wire.MaxSamples)))}
	if _, err := wire.Call(ctx, h, p, wire.MeasureProtocol, req, wire.MaxMeasureRequestSize, &resp, wire.MaxMeasureResponseSize); err != nil {
		return nil, fmt.Errorf("ask %s to measure %s: %w", p, hostPort, err)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("peer %s could not measure %s: %s", p, hostPort, resp.Error)
	}
	return &resp, nil
}
