package manager

import (
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// NextCrawl returns when channel c's next round is due and its recrawl
// interval, as the schedule sees them (rounds.Schedule.NextCrawl).
func (m *Manager) NextCrawl(c channels.Channel) (next time.Time, interval time.Duration, ok bool) {
	return m.sched.NextCrawl(c)
}
