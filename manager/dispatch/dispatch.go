// Package dispatch hands the manager's tasks to the overlay: each once
// its host's lease is granted (at most one lease per host is live, so a
// host's tasks go one after another, never to two crawlers at once),
// signed with the manager's key, aimed at the host's point, or, for a
// spot-check, at a member that did not crawl the result, and, for a task
// whose host's last holder let its lease lapse, at another member.
// Different hosts' tasks go in parallel.
//
// A task sent without an answer, or being sent when the manager stopped,
// may sit in a peer's queue: it is sent again under a new lease epoch, so
// the copy the overlay may hold can no longer claim the host, at most
// UnansweredResends times; then it is left to its start window.
package dispatch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/sync/errgroup"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/task"
)

// Config is what a Dispatcher reads and asks of the rest of the manager.
type Config struct {
	DB        *channels.DB
	Submitter *submit.Submitter
	// Key signs the tasks.
	Key crypto.PrivKey
	// Policy returns the politeness policy signed into every task (the
	// manager completes it once its site server is up); StoreRaw asks
	// crawlers to keep the pages' HTML (never for a spot-check).
	Policy   func() task.Policy
	StoreRaw bool
	// Times are the lease times of a task of the given recrawl interval.
	Times  func(interval time.Duration) channels.LeaseTimes
	Now    func() time.Time
	Logger *slog.Logger
	// Mine says whether a channel is this manager's to send.
	Mine func(channel string) bool
	// Members are the overlay's members, a spot-check's candidates;
	// Anchor is the point the zone map routes to a member now (the
	// manager's map, zones.Authority.Anchor), false for a member that
	// holds no zone in it.
	Members *members.Registry
	Anchor  func(peer.ID) (can.Point, bool)
	// Withdrawn says whether a peer's request-signing key was withdrawn;
	// Linked whether a peer connects from the network of one of others
	// (manager/peernets); Record is a peer's validation record.
	Withdrawn func(peer.ID) (bool, error)
	Linked    func(peer string, others []string) (other string, linked bool)
	Record    func(peer string) (storage.PeerRecord, error)
}

// Dispatcher sends the open tasks; its methods are safe for concurrent
// use.
type Dispatcher struct {
	cfg Config
	log *slog.Logger

	mu           sync.Mutex // guards the fields below
	sent, failed int
	// load is each member's open tasks, claimed or queued, as the last
	// Send read them, plus the spot-checks aimed since (CheckAim).
	load map[peer.ID]int
}

// New returns a Dispatcher over cfg.
func New(cfg Config) *Dispatcher {
	return &Dispatcher{cfg: cfg, log: cfg.Logger, load: map[peer.ID]int{}}
}

// Counts returns how many sends the overlay took and how many failed,
// since the Dispatcher was made.
func (d *Dispatcher) Counts() (sent, failed int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sent, d.failed
}

// SendTimeout bounds one attempt to hand a task to the overlay.
const SendTimeout = 15 * time.Second

// UnansweredResends is how many times a task whose send got no answer is
// sent again, each under a new lease epoch, before the manager leaves it
// to its start window (channels.DB.MarkUnanswered).
const UnansweredResends = 2

// sendHosts bounds how many hosts' tasks Send hands to the overlay at
// once. A submission can take up to SendTimeout (a busy or departed
// peer); sent one after another, a few slow ones held up every other
// host's task, and the rest of the schedule, for minutes.
const sendHosts = 8

// Send hands the tasks of this manager's channels not yet sent to the
// overlay, each once its host's lease is granted: at most one lease per
// host can be live, so the tasks of one host (its channels, the pieces
// of a large one) go one after another, never to two crawlers at once.
// Different hosts' tasks go in parallel (sendHosts).
func (d *Dispatcher) Send(ctx context.Context) error {
	open, err := d.cfg.DB.Open()
	if err != nil {
		return err
	}
	d.countLoad(open)
	var (
		byHost = map[string][]channels.Task{}
		hosts  []string // in the order of their first open task
	)
	for _, t := range open {
		if t.Sent || !d.cfg.Mine(cmp.Or(t.Channel, t.ID)) {
			continue
		}
		if t.Sending && t.Holder != "" {
			// The manager stopped while sending it, and a crawler has
			// claimed it since: it was delivered.
			d.log.Info("Task was being sent when the manager stopped and is claimed; not sending it again", "task", t.ID, "holder", t.Holder)
			if err := d.cfg.DB.MarkSent(t.ID, ""); err != nil {
				return err
			}
			continue
		}
		// A task the manager stopped while sending, or whose send got
		// no answer, and nobody claimed, is sent again under a new lease
		// epoch (sendOne): a copy the overlay may hold can no longer
		// claim the host. Left alone, it would wait for its lease to
		// lapse (manager.Options.Leases.StartWithin).
		if len(t.Spec) == 0 {
			continue
		}
		key := cmp.Or(t.Host, t.ID)
		if _, ok := byHost[key]; !ok {
			hosts = append(hosts, key)
		}
		byHost[key] = append(byHost[key], t)
	}
	// stop is set once no overlay peer can take tasks now, or a send
	// failed in a way the next tick must see first.
	var (
		stop atomic.Bool
		g    errgroup.Group
	)
	g.SetLimit(sendHosts)
	for _, h := range hosts {
		if stop.Load() {
			break
		}
		g.Go(func() error {
			for _, t := range byHost[h] {
				if stop.Load() {
					return nil
				}
				if s, err := d.sendOne(ctx, t); s || err != nil {
					stop.Store(true)
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// sendOne grants task t its host's lease, signs it and hands it to the
// overlay. stop is set when no overlay peer can take tasks now.
func (d *Dispatcher) sendOne(ctx context.Context, t channels.Task) (stop bool, err error) {
	spec, err := task.Decode(t.Spec)
	if err != nil {
		return false, fmt.Errorf("task %s: %w", t.ID, err)
	}
	now := d.cfg.Now()
	var check submit.Aim
	if t.Checks != "" {
		// A spot-check goes to a volunteer that did not crawl the result.
		var ok bool
		if check, ok = d.CheckAim(t); !ok {
			d.log.Debug("No other volunteer to run a spot-check yet", "task", t.ID)
			return false, nil
		}
	}
	if t.Checks == "" && !d.cfg.Submitter.Ready(ctx, t.Host) {
		d.log.Debug("Task waits for its host to be located", "task", t.ID, "host", t.Host)
		return false, nil
	}
	grant := d.cfg.DB.Grant
	if t.Sending {
		grant = d.cfg.DB.Regrant
	}
	g, ok, err := grant(t.ID, now, d.cfg.Times(time.Duration(spec.Interval)))
	if errors.Is(err, channels.ErrNotGrantable) {
		// Claimed since the open tasks were read (it was delivered, by a
		// send cut short or one told it failed), or ended.
		d.log.Debug("Task claimed or ended since the round began; not sending it", "task", t.ID, "err", err)
		if t.Sending {
			return false, d.cfg.DB.MarkSent(t.ID, "")
		}
		return false, nil
	}
	if err != nil || !ok {
		return false, err
	}
	switch {
	case t.Sending && t.Unanswered > 0:
		d.log.Info("Task sent without an answer is not claimed; sending it again under a new lease epoch", "task", t.ID, "old_epoch", t.Epoch, "epoch", g.Epoch)
	case t.Sending:
		d.log.Info("Task was being sent when the manager stopped; sending it again under a new lease epoch", "task", t.ID, "old_epoch", t.Epoch, "epoch", g.Epoch)
	}
	aim := check
	if t.Checks == "" {
		aim = d.cfg.Submitter.Aim(ctx, g.Host)
		if away, ok := d.awayFromLapse(t.ID, g.Host, now); ok {
			aim = away
		}
	}
	spec.Issued = now
	spec.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: g.StartBy}
	spec.Target = aim.Target
	spec.Policy = d.cfg.Policy()
	spec.Raw = d.cfg.StoreRaw && t.Checks == "" // a spot-check stores nothing
	env, err := envelope.Seal(spec, d.cfg.Key)
	if err != nil {
		return false, fmt.Errorf("sign task %s: %w", t.ID, err)
	}
	if err := d.cfg.DB.Signed(t.ID, env); err != nil {
		return false, err
	}
	sctx, cancel := context.WithTimeout(ctx, SendTimeout)
	owner, err := d.cfg.Submitter.Submit(sctx, aim, env)
	cancel()
	switch {
	case err == nil:
		d.mu.Lock()
		d.sent++
		d.mu.Unlock()
		d.log.Debug("Task sent", "task", t.ID, "owner", owner, "epoch", g.Epoch)
		return false, d.cfg.DB.MarkSent(t.ID, owner.String())
	case errors.Is(err, submit.ErrUncertain):
		// The copy the overlay may hold is fenced out by the next epoch;
		// left alone, a copy lost with a departing peer held the host
		// until its start window passed and the channel's round was lost.
		n, merr := d.cfg.DB.MarkUnanswered(t.ID)
		if merr != nil {
			return false, merr
		}
		if n <= UnansweredResends {
			d.log.Info("Task sent without an answer; sending it again under a new lease epoch unless it is claimed first", "task", t.ID, "epoch", g.Epoch, "err", err)
			return false, nil
		}
		d.log.Info("Task sent without an answer again; leaving it to its start window", "task", t.ID, "sends", n, "err", err)
		return false, d.cfg.DB.MarkSent(t.ID, "")
	default: // never delivered: granted and sent again at the next tick
		if err := d.cfg.DB.MarkSending(t.ID, false); err != nil {
			return false, err
		}
		if errors.Is(err, submit.ErrNoEntryPeer) {
			d.log.Debug("No overlay peer to send tasks to yet")
			return true, nil
		}
		d.mu.Lock()
		d.failed++
		d.mu.Unlock()
		d.log.Info("Task not sent; retrying next round", "task", t.ID, "err", err)
		return false, nil
	}
}

// awayFromLapse aims task id at a member other than the peer that let
// its host's lease lapse (channels.LapseMemory), when one did: that peer
// may own the host's zone and would be sent each of its tasks in turn.
// The member is chosen as a spot-check's is (CheckAim), so never one
// linked to the lapsed peer either.
func (d *Dispatcher) awayFromLapse(id, host string, now time.Time) (submit.Aim, bool) {
	lapsed, err := d.cfg.DB.Lapsed(host, now)
	if err != nil || lapsed == "" {
		return submit.Aim{}, false
	}
	aim, ok := d.CheckAim(channels.Task{ID: id, Avoid: []string{lapsed}})
	if ok {
		d.log.Info("Task aimed at another member: the host's last holder let its lease lapse", "task", id, "host", host, "lapsed", lapsed, "to", aim.Direct)
	}
	return aim, ok
}

// countLoad sets each member's load from the open tasks: one for each
// task it claimed (Holder) or, unclaimed, queued (Owner).
func (d *Dispatcher) countLoad(open []channels.Task) {
	load := map[peer.ID]int{}
	for _, t := range open {
		if who := cmp.Or(t.Holder, t.Owner); who != "" {
			if id, err := peer.Decode(who); err == nil {
				load[id]++
			}
		}
	}
	d.mu.Lock()
	d.load = load
	d.mu.Unlock()
}

// CheckAim picks the member that runs spot-check t: a member holding a
// zone, not in t.Avoid nor linked to one of them (manager/peernets),
// trusted by its validation record if any is, else one with nothing
// against it (no failed result or check, no lapsed lease); of those, the
// two with the highest hash of task and peer, and of the two the one
// with the smaller load (its open tasks), the higher hash on a tie; with its
// anchor in the zone map as the target, so it queues the task itself.
//
// Two choices, not the least loaded of all: the checks fill the members
// that placement by round trip left idle (the power of two choices
// balances nearly as well as the least loaded of all), while a member
// cannot make itself every check's checker by keeping idle, a cheater's
// twin waiting for its partner's results: at most it doubles its share.
// Each check chosen adds to its checker's load until the next Send counts
// again.
//
// The map, not the zones a member reported at its last renewal, is the
// authority: a join since may have split the member's zone and given
// away the half a reported zone's centre lies in, and the check then
// went on to that half's holder, the checked crawler itself at times,
// which may not claim it (misrouted).
func (d *Dispatcher) CheckAim(t channels.Task) (submit.Aim, bool) {
	type cand struct {
		id     peer.ID
		rank   int // 2 trusted, 1 no record against it, 0 suspect
		score  uint64
		anchor can.Point
	}
	var cs []cand
	for _, mb := range d.cfg.Members.Reported() {
		if slices.Contains(t.Avoid, mb.ID.String()) {
			continue
		}
		anchor, ok := d.cfg.Anchor(mb.ID)
		if !ok {
			continue // holds no zone now
		}
		if w, err := d.cfg.Withdrawn(mb.ID); w || err != nil {
			continue // unknown counts as withdrawn: another member can check
		}
		if _, linked := d.cfg.Linked(mb.ID.String(), t.Avoid); linked {
			continue // on the network of the crawler or an earlier checker
		}
		h := sha256.Sum256([]byte(t.ID + "\x00" + mb.ID.String()))
		c := cand{id: mb.ID, rank: 1, score: binary.BigEndian.Uint64(h[:8]), anchor: anchor}
		if rec, err := d.cfg.Record(mb.ID.String()); err == nil {
			switch {
			case rec.Trusted():
				c.rank = 2
			case rec.Suspect(), rec.Lapses > 0:
				// A peer that let a lease lapse comes last too: a
				// squatter's twin would otherwise get the next task
				// of the host the squatter held.
				c.rank = 0
			}
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return submit.Aim{}, false
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.rank != b.rank {
			return cmp.Compare(b.rank, a.rank)
		}
		return cmp.Compare(b.score, a.score)
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	best := cs[0]
	if len(cs) > 1 && cs[1].rank == best.rank && d.load[cs[1].id] < d.load[best.id] {
		best = cs[1]
	}
	d.load[best.id]++
	return submit.Aim{Target: best.anchor, Direct: best.id}, true
}
