package placement

import (
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// Training the CAN space's bounds (paper 002 §3): the box of network
// coordinates that maps onto the CAN space is cut from the members' own
// coordinates, λ = coord.DefaultTrim % trimmed off each side of each
// dimension, so that the members, and the hosts near them, spread over the
// whole space instead of crowding its middle.
const (
	// settledSamples and coord.SettledError say when a member's
	// coordinate is settled enough to train from: the samples and Vivaldi
	// error at which a peer makes its first move (p2p/node/drift.go).
	settledSamples = 100
	// boundsCheckEvery is how often the members' coordinates are looked at:
	// as often as they report them.
	boundsCheckEvery = entry.RenewEvery
	// retrainShift is how far, as a share of the current box's width, a
	// face of a newly trained box must lie from the current one before the
	// bounds change, and retrainEvery the least time between two changes:
	// every change moves the mapped point of every member and host a
	// little, and members whose point left their zone move to it (a Move
	// each, p2p/node/drift.go), so the box follows the swarm only when it
	// has really moved.
	retrainShift = 0.25
	retrainEvery = 10 * time.Minute
	// minBoundsWidth keeps a box trained from members all at about the
	// same place (a swarm in one building) from stretching millisecond
	// noise over the whole space.
	minBoundsWidth = 20.0
	// boundsMeta is the channel database's meta record of the bounds.
	boundsMeta = "bounds"
)

// Meta is where the trained bounds are kept (the channel database's meta
// records), so a restarted manager keeps them.
type Meta interface {
	GetMeta(name string, v any) (bool, error)
	PutMeta(name string, v any) error
}

// Trainer keeps the current bounds, trains new ones from the members'
// settled coordinates, and hands the signed record to publish (the entry
// registry, whose answers carry it to every member). Safe for concurrent
// use.
type Trainer struct {
	meta    Meta
	key     crypto.PrivKey
	publish func(signed []byte)
	log     *slog.Logger

	mu      sync.Mutex // guards the fields below
	cur     envelope.Bounds
	checked time.Time
	trained time.Time
}

// NewTrainer starts from the bounds stored in meta by an earlier run, or
// else from initial (the operator's, epoch 0: untrained), which the
// network profile carries. Each record it adopts is signed with key, the
// manager's, and handed to publish.
func NewTrainer(meta Meta, key crypto.PrivKey, publish func(signed []byte), initial coord.Bounds, log *slog.Logger) (*Trainer, error) {
	b := &Trainer{meta: meta, key: key, publish: publish, log: log, cur: envelope.Bounds{Bounds: initial}}
	var stored envelope.Bounds
	found, err := meta.GetMeta(boundsMeta, &stored)
	if err != nil {
		return nil, err
	}
	if found && stored.Validate() == nil && len(stored.Bounds.Lo) == len(initial.Lo) {
		b.cur = stored
		if err := b.sign(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Current returns the bounds hosts and members are mapped with now.
func (b *Trainer) Current() envelope.Bounds {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cur
}

// sign signs the current bounds and publishes them; b.mu is held or b
// not yet shared.
func (b *Trainer) sign() error {
	signed, err := envelope.SealBounds(b.cur, b.key)
	if err != nil {
		return err
	}
	b.publish(signed)
	return nil
}

// MaybeTrain trains bounds from members (as they last reported
// themselves) at now, at most every boundsCheckEvery, and adopts them when they are the first trained or
// moved far enough (retrainShift, retrainEvery). It reports whether the
// bounds changed.
func (b *Trainer) MaybeTrain(now time.Time, members []members.Member) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.checked) < boundsCheckEvery {
		return false, nil
	}
	b.checked = now
	nb, ok := trainFrom(members, len(b.cur.Bounds.Lo))
	if !ok {
		return false, nil
	}
	if b.cur.Epoch > 0 && (now.Sub(b.trained) < retrainEvery || shift(b.cur.Bounds, nb) < retrainShift) {
		return false, nil
	}
	next := envelope.Bounds{Epoch: b.cur.Epoch + 1, Bounds: nb}
	if err := b.meta.PutMeta(boundsMeta, next); err != nil {
		return false, err
	}
	b.cur, b.trained = next, now
	if err := b.sign(); err != nil {
		return false, err
	}
	b.log.Info("CAN space bounds trained from members' coordinates", "epoch", next.Epoch, "lo", fmt.Sprint(round1(nb.Lo)), "hi", fmt.Sprint(round1(nb.Hi)))
	return true, nil
}

// trainFrom trains bounds of dim dimensions from the members' settled
// coordinates: ok is false until at least d+1 members, and two thirds of
// all, have one.
func trainFrom(members []members.Member, dim int) (coord.Bounds, bool) {
	var sample []coord.Coord
	for _, mb := range members {
		if len(mb.Coord) == dim && mb.CoordError <= coord.SettledError && mb.Samples >= settledSamples {
			sample = append(sample, coord.Coord{Vec: mb.Coord})
		}
	}
	if len(sample) < max(dim+1, (2*len(members)+2)/3) {
		return coord.Bounds{}, false
	}
	nb, err := coord.TrainBounds(sample, coord.DefaultTrim)
	if err != nil {
		return coord.Bounds{}, false
	}
	for i := range nb.Lo {
		if w := nb.Hi[i] - nb.Lo[i]; w < minBoundsWidth {
			mid := (nb.Lo[i] + nb.Hi[i]) / 2
			nb.Lo[i], nb.Hi[i] = mid-minBoundsWidth/2, mid+minBoundsWidth/2
		}
	}
	return nb, true
}

// shift is how far the farthest face of b lies from a's, as a share of
// a's width in that dimension.
func shift(a, b coord.Bounds) float64 {
	var worst float64
	for i := range a.Lo {
		w := a.Hi[i] - a.Lo[i]
		worst = max(worst, math.Abs(b.Lo[i]-a.Lo[i])/w, math.Abs(b.Hi[i]-a.Hi[i])/w)
	}
	return worst
}

func round1(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Round(x*10) / 10
	}
	return out
}
