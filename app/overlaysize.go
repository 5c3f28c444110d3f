package app

import (
	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// maxPieces is N_pieces^max for load balancing on insert: OT, but never
// more than one less than the tasks this peer can hold (task threads plus
// queue), so a peer whose queue is full forwards new tasks to a less
// loaded neighbour instead of refusing them. (design.md §5 forwards when
// RTL > OT; with OT at full capacity that could never happen.)
func maxPieces(cfg config.Config, noLBI bool) int {
	if noLBI {
		return 0 // node.Config: 0 disables load balancing on insert
	}
	return max(1, min(cfg.OverloadThreshold(), cfg.Threads+cfg.QueueLength-1))
}

// overlayConns derives the overlay's connection cap (libp2p's resource
// and connection managers) from the contributor's connection cap: the
// crawl connections' number again for the overlay, but never fewer than a
// CAN peer needs (about 2d neighbours, the manager and a few DHT peers).
// No cap (0) leaves p2p/host's default.
func overlayConns(cfg config.Config) int {
	const least = 16
	if cfg.Connections <= 0 {
		return 0
	}
	return max(least, cfg.Connections)
}

// capacity turns the contributor's caps into the load figures' scale.
func capacity(cfg config.Config) can.Capacity {
	c := can.Capacity{BWDownload: defaultDownloadMbps, MemoryGB: defaultMemoryGB}
	if cfg.Download > 0 {
		c.BWDownload = float64(cfg.Download) * 8 / 1e6
	}
	if cfg.Memory > 0 {
		c.MemoryGB = float64(cfg.Memory) / (1 << 30)
	}
	return c
}
