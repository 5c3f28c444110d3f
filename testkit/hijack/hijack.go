// Package hijack is the demo's zone hijacker: a member that tries, every
// way this overlay once allowed, to take its neighbours' zones, so that
// `hivecrawl demo --hijackers N` can count what it got. It is test kit
// code: only a program built with it (`go build -tags adversary
// ./cmd/hivecrawl`, then `run --hijack`) runs it.
//
// Every heartbeat interval it heartbeats each neighbour with, beside its
// own certificates:
//   - forged: a certificate of each of the neighbour's zones naming the
//     hijacker, under a higher epoch, signed with the hijacker's own key;
//   - tampered: the neighbour's own certificate with the holder changed
//     to the hijacker;
//   - replayed: every genuine certificate it has seen that names itself,
//     kept after the manager replaced it (a zone it held before a split).
//
// Every renewal interval it reports each neighbour to the manager as
// silent. It counts what it sent and what the manager took, in the JSON
// file the demo reads (swarm/adversary.HijackFile).
package hijack

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
)

// Node is what the hijacker needs of its own peer.
type Node interface {
	Neighbours() []peer.ID
}

// Hijacker attacks its neighbours' zones. Run runs it.
type Hijacker struct {
	Host      *host.Host
	Node      Node
	Key       crypto.PrivKey // its own, not the manager's
	Authority zonecert.Authority
	Every     time.Duration // heartbeat interval
	Renew     time.Duration // report interval
	Path      string        // the counts file, adversary.HijackFile in its data directory
	Log       *slog.Logger

	mu     sync.Mutex
	counts adversary.HijackCounts
	seen   map[can.Path]zonecert.Cert // certificates seen naming itself, by zone
	theirs map[peer.ID][]zonecert.Cert
	answer map[peer.ID]time.Time // when each neighbour last answered
}

// Run attacks until ctx ends.
func (j *Hijacker) Run(ctx context.Context) {
	j.seen = map[can.Path]zonecert.Cert{}
	j.theirs = map[peer.ID][]zonecert.Cert{}
	j.answer = map[peer.ID]time.Time{}
	beat := time.NewTicker(j.Every)
	defer beat.Stop()
	lastReport := time.Now()
	for {
		select {
		case <-ctx.Done():
			j.save()
			return
		case <-beat.C:
		}
		for _, id := range j.Node.Neighbours() {
			j.claim(ctx, id)
		}
		if time.Since(lastReport) >= j.Renew {
			lastReport = time.Now()
			for _, id := range j.Node.Neighbours() {
				j.report(ctx, id)
			}
		}
		j.save()
	}
}

// claim heartbeats neighbour id with every claim the hijacker can make,
// and reports whether it answered.
func (j *Hijacker) claim(ctx context.Context, id peer.ID) bool {
	self := j.Host.ID()
	var certs [][]byte
	add := func(c zonecert.Cert, n *int64) {
		if b, err := c.MarshalBinary(); err == nil && len(certs) < wire.MaxCerts {
			certs = append(certs, b)
			*n++
		}
	}
	j.mu.Lock()
	for _, c := range j.theirs[id] {
		forged := zonecert.Cert{Path: c.Path, Holder: self, Epoch: c.Epoch + 1000, Expiry: time.Now().Add(time.Hour)}
		if forged.Sign(j.Key) == nil {
			add(forged, &j.counts.Forged)
		}
		tampered := c
		tampered.Holder = self
		add(tampered, &j.counts.Tampered)
	}
	for _, c := range j.seen {
		add(c, &j.counts.Replayed)
	}
	j.mu.Unlock()
	hb := &wire.Heartbeat{Self: &wire.Peer{Id: []byte(self)}, Certs: certs}
	cctx, cancel := context.WithTimeout(ctx, 2*j.Every)
	defer cancel()
	var resp wire.Heartbeat
	if _, err := wire.Call(cctx, j.Host, id, wire.HeartbeatProtocol, hb, wire.MaxHeartbeatSize, &resp, wire.MaxHeartbeatSize); err != nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.answer[id] = time.Now()
	var theirs []zonecert.Cert
	for _, b := range resp.Certs {
		c, err := zonecert.Decode(b)
		if err != nil {
			continue
		}
		switch c.Holder {
		case id:
			theirs = append(theirs, c)
		case self:
			// Kept to replay once the manager has replaced it.
			if old, ok := j.seen[c.Path]; !ok || old.Epoch < c.Epoch {
				j.seen[c.Path] = c
			}
		}
	}
	j.theirs[id] = theirs
	return true
}

// report tells the manager that neighbour id is silent, which it is not:
// it answered the hijacker a moment ago. Should the manager take the
// report, a heartbeat right after tells a live peer evicted on a lie from
// one that died meanwhile.
func (j *Hijacker) report(ctx context.Context, id peer.ID) {
	j.mu.Lock()
	live := time.Since(j.answer[id]) < j.Every
	j.mu.Unlock()
	if !live {
		return
	}
	_, err := j.Authority.Zones(ctx, zonecert.Request{Op: zonecert.OpReport, Suspect: id})
	alive := err == nil && j.claim(ctx, id)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.counts.Reports++
	switch {
	case err != nil:
	case alive:
		j.counts.ReportsTaken++
		j.Log.Warn("The manager took a false report", "neighbour", id.String())
	default:
		j.counts.ReportsOfGone++
	}
}

// save writes the counts file.
func (j *Hijacker) save() {
	j.mu.Lock()
	b, err := json.Marshal(j.counts)
	j.mu.Unlock()
	if err != nil {
		return
	}
	if err := atomicfile.Replace(j.Path, b, 0o600); err != nil {
		j.Log.Debug("Hijack counts not written", "err", err)
	}
}
