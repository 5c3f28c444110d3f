package zones

import (
	"context"
	"fmt"
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Report is reporter telling the manager that suspect, a neighbour,
// stopped answering. Only a holder whose zones abut the suspect's may
// report (else ErrNotNeighbour; ErrJoinAgain for a reporter that holds no
// live zone). The manager then checks the suspect itself (Options.Live),
// at most once per Options.CheckEvery (else ErrCheckedRecently): a
// suspect that answers is left alone and the report refused with
// ErrSuspectAnswers, so a lying reporter evicts nobody; one that does not
// is removed as if it had left, and the grant carries the heirs' zones.
// A suspect that holds no zone any more is no error: the grant is the
// reporter's current one. The check runs without holding the authority,
// bounded by ctx.
func (a *Authority) Report(ctx context.Context, reporter, suspect peer.ID) (Grant, error) {
	what := fmt.Sprintf("report of %s by %s", suspect, reporter)
	rid, sid := pid(reporter), pid(suspect)
	if rid == sid {
		return Grant{}, fmt.Errorf("%s: %w", what, ErrNotNeighbour)
	}
	a.mu.Lock()
	now := a.opts.Now()
	err := a.store.View(func(tx kv.Tx) error {
		b := tx.Bucket(Bucket)
		if err := a.current(b); err != nil {
			return err
		}
		e, ok := a.m.Expiry(rid)
		if !ok {
			return ErrJoinAgain
		}
		if r, ok, err := readRenewal(b, rid); err != nil {
			return err
		} else if ok && r.After(e) {
			e = r
		}
		if !now.Before(e) {
			return ErrJoinAgain
		}
		return nil
	})
	if err == nil && !a.m.Has(sid) {
		g, err := a.grant(rid, nil)
		a.mu.Unlock()
		return g, err
	}
	if err == nil && !slices.Contains(a.m.Neighbours(rid), sid) {
		err = ErrNotNeighbour
	}
	if last, ok := a.checks[suspect]; err == nil && ok && now.Sub(last) < a.opts.CheckEvery {
		err = ErrCheckedRecently
	}
	if err == nil {
		a.checks[suspect] = now
	}
	a.mu.Unlock()
	if err != nil {
		return Grant{}, fmt.Errorf("%s: %w", what, err)
	}

	if a.opts.Live == nil {
		return Grant{}, fmt.Errorf("%s: no liveness check: %w", what, ErrSuspectAnswers)
	}
	if err := a.opts.Live(ctx, suspect); err == nil {
		return Grant{}, fmt.Errorf("%s: %w", what, ErrSuspectAnswers)
	} else if ctx.Err() != nil {
		// Our own deadline, not the suspect's silence.
		return Grant{}, fmt.Errorf("%s: check cut short: %w", what, ctx.Err())
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	changed, err := a.remove(sid)
	if err != nil {
		return Grant{}, fmt.Errorf("%s: %w", what, err)
	}
	if changed != nil {
		a.stats.Evicted++
	}
	return a.grant(rid, changed)
}
