package admission

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// SeenSet remembers the tasks a peer has taken on, so that a genuine task
// replayed to it is refused. The client's bbolt task queue implements it;
// NewMemory keeps one in memory, which forgets on restart.
type SeenSet interface {
	// Seen records task id and reports whether it was recorded already,
	// in one atomic step that is durable when Seen returns. The record
	// may be forgotten after expires.
	Seen(ctx context.Context, id string, expires time.Time) (seen bool, err error)
}

// Record records t's delivery in s, refusing it (ErrSeen) if it was
// already there.
func Record(ctx context.Context, s SeenSet, t *task.Task) error {
	// The margin keeps the record while a clock stepped back could still
	// take the task's lease for live.
	seen, err := s.Seen(ctx, Key(t), t.Lease.Expires.Add(MaxClockSkew))
	switch {
	case err != nil:
		return fmt.Errorf("record task %s as seen: %w", t.ID, err)
	case seen:
		return fmt.Errorf("%w: task %s", ErrSeen, t.ID)
	}
	return nil
}

// Key names one delivery of t: its ID under one lease epoch. A replay of
// the envelope is the same delivery and is refused. A task the manager
// sends again after a refusal (a full queue, a peer leaving) comes under
// the host's next lease, so it is a new delivery, and a peer that took and
// then refused the first one does not refuse it for ever. The earlier
// epoch's copy, wherever it is, can no longer claim the host's lease.
func Key(t *task.Task) string {
	return t.ID + "@" + strconv.FormatUint(t.Lease.Epoch, 10)
}

// memory is a SeenSet in memory.
type memory struct {
	mu     sync.Mutex           // guards the fields below
	ids    map[string]time.Time // task ID → when the record may go
	pruned time.Time
}

// NewMemory returns a SeenSet in memory, for a peer whose queue keeps
// none: it forgets on restart.
func NewMemory() SeenSet { return &memory{ids: map[string]time.Time{}} }

func (m *memory) Seen(_ context.Context, id string, expires time.Time) (bool, error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.pruned) > time.Minute {
		for k, until := range m.ids {
			if now.After(until) {
				delete(m.ids, k)
			}
		}
		m.pruned = now
	}
	until, ok := m.ids[id]
	if !ok || expires.After(until) {
		m.ids[id] = expires
	}
	return ok, nil
}
