package manager

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/task"
)

// checkPrefix begins every spot-check task's ID.
const checkPrefix = "check/"

// checkInterval is a spot-check task's interval when its channel has none
// yet: it bounds when the task must start and when it counts lost.
const checkInterval = time.Hour

// IssueCheck issues a spot-check task for the storage module: it
// re-fetches urls, a sample of the result of task of, with the operator's
// politeness, and goes through its host's lease like any task, so it never
// runs beside another crawler of the host. It is sent to a member not in
// avoid.
func (b book) IssueCheck(_ context.Context, of string, urls []string, avoid []string) (string, error) {
	m := b.m
	orig, err := m.db.Task(of)
	if err != nil {
		return "", err
	}
	now := m.opts.Now()
	iv := checkInterval
	if c, err := m.db.Get(orig.Channel); err == nil {
		if v, ok := m.sched.Interval(c.Index); ok && v > 0 {
			iv = v
		}
	}
	sum := sha256.Sum256([]byte(of))
	spec := task.Task{
		ID:       fmt.Sprintf(checkPrefix+"%x/%d", sum[:12], now.UnixNano()),
		Channel:  orig.Channel,
		Seeds:    urls,
		MaxDepth: 0,
		MaxPages: len(urls),
		Delay:    task.Duration(m.opts.Delay),
		Interval: task.Duration(iv),
		Issued:   now,
	}
	if err := spec.Validate(); err != nil {
		return "", fmt.Errorf("spot-check of task %s: %w", of, err)
	}
	raw, err := spec.Encode()
	if err != nil {
		return "", err
	}
	rec := channels.Task{ID: spec.ID, Channel: orig.Channel, Issued: now, Deadline: now.Add(2*iv + m.opts.Slack),
		Spec: raw, Host: spec.Host(), Checks: of, Avoid: avoid}
	if err := m.db.IssueCheck(rec); err != nil {
		return "", err
	}
	m.metrics.issued.WithLabelValues(kindCheck).Inc()
	m.log.Info("Spot-check issued", "task", spec.ID, "checks", of, "pages", len(urls))
	return spec.ID, nil
}

// checkAim picks the member that runs spot-check t: a member holding a
// zone, not in t.Avoid nor linked to one of them (manager/peernets), trusted by
// its validation record if any is, else one with nothing against it (no
// failed result or check, no lapsed lease);
// among those the same one for t while members stay (the highest hash of
// task and peer); with a target point in its first zone so it queues the
// task itself.
func (m *Manager) checkAim(t channels.Task) (submit.Aim, bool) {
	type cand struct {
		id    peer.ID
		rank  int // 2 trusted, 1 no record against it, 0 suspect
		score uint64
		zone  can.Zone
	}
	var cs []cand
	for _, mb := range m.members.Reported() {
		if len(mb.Zones) == 0 || slices.Contains(t.Avoid, mb.ID.String()) {
			continue
		}
		if w, err := m.withdrawn(mb.ID); w || err != nil {
			continue // unknown counts as withdrawn: another member can check
		}
		if _, linked := m.nets.Linked(mb.ID.String(), t.Avoid); linked {
			continue // on the network of the crawler or an earlier checker
		}
		h := sha256.Sum256([]byte(t.ID + "\x00" + mb.ID.String()))
		z := mb.Zones[0]
		c := cand{id: mb.ID, rank: 1, score: binary.BigEndian.Uint64(h[:8]), zone: can.Zone{Lo: z.Lo, Hi: z.Hi}}
		if rec, err := m.store.PeerRecord(mb.ID.String()); err == nil {
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
	best := slices.MaxFunc(cs, func(a, b cand) int {
		if a.rank != b.rank {
			return cmp.Compare(a.rank, b.rank)
		}
		return cmp.Compare(a.score, b.score)
	})
	return submit.Aim{Target: best.zone.Centre(), Direct: best.id}, true
}

// resultFailed is told when a peer's result failed its spot-checks: from
// the operator's strike limit on, the peer's request-signing key is
// withdrawn, so it is granted no lease and web sites see its requests as
// unverified.
func (m *Manager) resultFailed(p string, failures int, withdraw bool) {
	m.log.Warn("A result failed validation", "peer", p, "failures", failures)
	if !withdraw {
		return
	}
	if err := m.WithdrawKey(p, fmt.Sprintf("%d results failed validation", failures)); err != nil {
		m.log.Warn("Key not withdrawn", "peer", p, "err", err)
	}
}
