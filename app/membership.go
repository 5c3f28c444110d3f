package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	libp2pnet "github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// ask sends an entry request to the manager, connecting first, and notes
// whether the manager answers. Every request reports the member's
// coordinate and capacity.
func (nw *network) ask(ctx context.Context, req entry.Request) (entry.Answer, error) {
	a, err := nw.askOnce(ctx, req)
	if err != nil {
		now := time.Now()
		if nw.silentSince.CompareAndSwap(nil, &now) {
			nw.log.Info("The manager does not answer; results are held until it does", "err", err)
		}
		return a, err
	}
	if nw.silentSince.Swap(nil) != nil {
		nw.log.Info("The manager answers again")
		if nw.onBack != nil {
			nw.onBack()
		}
	}
	return a, nil
}

func (nw *network) askOnce(ctx context.Context, req entry.Request) (entry.Answer, error) {
	if nw.h.Network().Connectedness(nw.manager) != libp2pnet.Connected {
		if err := nw.h.Bootstrap(ctx); err != nil {
			return entry.Answer{}, fmt.Errorf("reach the manager: %w", err)
		}
	}
	req.Version = nw.version
	c := nw.capacity
	req.Capacity = min(c.BWDownload, c.MemoryGB)
	v := nw.node.View()
	req.Coord, req.CoordError, req.Samples = v.Coordinate.Vec, v.Coordinate.Error, v.Samples
	a, err := entry.Ask(ctx, nw.h, nw.manager, req)
	if err == nil {
		nw.noteOutdated(a.Outdated)
		if a.Outdated != "" {
			select {
			case nw.kick <- struct{}{}: // serve retires the peer
			default:
			}
		}
	}
	if err == nil && len(a.Bounds) > 0 {
		nw.adoptBounds(a.Bounds)
	}
	return a, err
}

// noteOutdated records the manager's word on this client's version: why,
// when it is older than the network's minimum, or "" when it is not. A
// client that left the overlay as outdated keeps the word until restarted.
func (nw *network) noteOutdated(why string) {
	if why == "" {
		if !nw.retired.Load() && nw.outdated.Swap(nil) != nil {
			nw.log.Info("The manager gives this version tasks again")
		}
		return
	}
	if prev := nw.outdated.Swap(&why); prev == nil || *prev != why {
		nw.log.Warn("The manager gives this version no task; update Hivecrawl", "version", nw.version, "reason", why)
	}
}

// outdatedReason returns the manager's word that this client is too old
// to take tasks, "" when it has none.
func (nw *network) outdatedReason() string {
	if p := nw.outdated.Load(); p != nil {
		if nw.retired.Load() {
			return *p + " (then restart Hivecrawl)"
		}
		return *p
	}
	return ""
}

// retire leaves the overlay for good (until a restart), because why:
// the manager gives this client's version no task, or the client refuses
// the network's policy. Its zones and queued tasks go to neighbours,
// rather than waiting here for claims the manager refuses or crawls this
// client will not make.
func (nw *network) retire(why string) {
	if nw.retired.Swap(true) {
		return
	}
	nw.member.Store(false)
	if err := nw.leave(); err != nil {
		nw.log.Warn("Leaving the overlay failed", "reason", why, "err", err)
		return
	}
	nw.log.Info("Left the overlay: " + why)
}

// adoptBounds hands the manager's trained bounds to the node once their
// signature checks out; anything else is logged and ignored. The same
// record, which every renewal brings, is checked once.
func (nw *network) adoptBounds(signed []byte) {
	if bytes.Equal(signed, nw.bounds) {
		return
	}
	nw.bounds = signed
	b, err := envelope.OpenBounds(signed, nw.key)
	if err != nil {
		nw.log.Warn("Bounds from the manager refused", "err", err)
		return
	}
	nw.node.SetBounds(b.Epoch, b.Bounds)
}

// enter asks the manager for a zone at this peer's point. Only the
// manager grants zones: while it cannot be reached, the peer waits.
func (nw *network) enter(ctx context.Context) error {
	err := nw.node.Join(ctx)
	switch {
	case errors.Is(err, entry.ErrOutdated):
		return errors.Join(errOutdated, err)
	case err != nil:
		return err
	}
	nw.member.Store(true)
	nw.log.Info("Joined the overlay", "zones", len(nw.node.Zones()))
	// Remembered at once: the neighbours of the moment are the peers to
	// reach first after a restart.
	nw.remember(ctx)
	return nil
}

// remember notes the overlay neighbours in the peer book, writing it at
// most once a minute, and announces this peer's membership on the DHT
// once it is a member.
func (nw *network) remember(ctx context.Context) {
	if nw.h.DHT() != nil && nw.advertising.CompareAndSwap(false, true) {
		go nw.h.ServeAdvertise(ctx, host.OverlayRendezvous)
	}
	now := time.Now()
	nw.noteNeighbours(now)
	if now.Sub(nw.saved) < saveBook {
		return
	}
	nw.saved = now
	if err := nw.book.Save(); err != nil {
		nw.log.Warn("Remembered peers not saved", "err", err)
	}
}

// noteNeighbours notes the overlay neighbours in the peer book, with the
// addresses known for them: from the manager's grant, which names them,
// before the first heartbeat has connected to them (a peer stopped a
// second after joining keeps them too). A wrong address costs a dial at
// the next start, no more: a connection proves the peer's identity.
func (nw *network) noteNeighbours(now time.Time) {
	for _, nb := range nw.node.View().Neighbours {
		if addrs := nw.h.Peerstore().Addrs(nb.ID); len(addrs) > 0 {
			nw.book.Note(peer.AddrInfo{ID: nb.ID, Addrs: addrs}, now)
		}
	}
}

// saveBook is how often, at most, the peer book is written.
const saveBook = time.Minute
