package manager

import (
	"context"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
)

// book is the manager's task book as the storage module sees it: results
// go to the channel database and the strategy.
type book struct{ m *Manager }

var _ storage.Tasks = book{}

// Task returns the record of an issued task.
func (b book) Task(id string) (channels.Task, error) { return b.m.db.Task(id) }

// Complete records a result and counts a succeeded round.
func (b book) Complete(_ context.Context, id, peer string, fb channels.Feedback) (channels.Outcome, error) {
	m := b.m
	now := m.opts.Now()
	out, err := m.db.Complete(id, peer, fb, now)
	if err != nil || !out.First {
		return out, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.strat != nil && out.Channel.Index < m.stratN && out.RoundDone && out.RoundOK {
		m.strat.Succeeded(out.Channel.Index, now)
		m.dirty = true
	}
	return out, nil
}
