package manager

import (
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// NextCrawl returns when channel c's next round is due and its recrawl
// interval, as the schedule sees them: a round starts once the last one
// has no task pending and the interval has passed since it was submitted.
// A channel never submitted is due at once. ok is false while the
// strategy does not know c yet (it was added since the last Tick).
func (m *Manager) NextCrawl(c channels.Channel) (next time.Time, interval time.Duration, ok bool) {
	iv, ok := m.interval(c.Index)
	if !ok {
		return time.Time{}, 0, false
	}
	if c.LastSubmit.IsZero() {
		return c.Added, iv, true
	}
	return c.LastSubmit.Add(iv), iv, true
}
