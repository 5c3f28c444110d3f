package taskmgr

import (
	"fmt"
	"sort"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
)

// Status is what the task manager is doing.
type Status struct {
	// Threads is the current limit on running tasks (CL, or OT if lower).
	Threads int       `json:"threads"`
	Running []Running `json:"running"`
	Queued  []Queued  `json:"queued"`
	// MaxQueued is the queue's maximum length.
	MaxQueued int `json:"max_queued"`
	// Uploading counts results waiting for or in delivery.
	Uploading int `json:"uploading"`
	// Refused counts tasks refused because the queue was full and Expired
	// tasks cancelled for waiting longer than their recrawl interval, since
	// the manager was created: the load-dependent failures.
	Refused int64 `json:"refused"`
	Expired int64 `json:"expired"`
}

// Running is one running task.
type Running struct {
	ID      string        `json:"id"`
	Channel string        `json:"channel"`
	Pages   int           `json:"pages"`
	Depth   int           `json:"depth"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed"`
	// Resumed is the pages done before this start (a crawl resumed from
	// its checkpoint). Requests, Waiting and Budget are the crawl's
	// outlook (crawler.Frontier): requests made, URLs found and not yet
	// fetched, requests left within its page limit.
	Resumed  int `json:"resumed"`
	Requests int `json:"requests"`
	Waiting  int `json:"waiting"`
	Budget   int `json:"budget"`
}

// Known is the pages the crawl has fetched or found so far, bounded by its
// page limit.
func (r Running) Known() int { return r.Requests + min(r.Waiting, r.Budget) }

// Left estimates the pages still to fetch and, from the pace since the
// task (re)started, the time that takes; ok is false until there is a pace
// to go by (a few pages, a few seconds).
func (r Running) Left() (pages int, d time.Duration, ok bool) {
	pages = min(r.Waiting, r.Budget)
	done := r.Pages - r.Resumed
	if done < 3 || r.Elapsed < 3*time.Second {
		return pages, 0, false
	}
	return pages, time.Duration(float64(r.Elapsed) / float64(done) * float64(pages)), true
}

// Queued is one waiting task.
type Queued struct {
	ID       string        `json:"id"`
	Channel  string        `json:"channel"`
	Enqueued time.Time     `json:"enqueued"`
	Waited   time.Duration `json:"waited"`
}

// Status returns a snapshot, running tasks longest-running first.
func (m *Manager) Status() (Status, error) {
	now := m.opts.Now()
	m.mu.Lock()
	st := Status{
		Threads: EffectiveThreads(m.threads, m.overload), Uploading: m.uploading, MaxQueued: m.q.MaxLen(),
		Refused: m.refused.Load(), Expired: m.expired.Load(),
	}
	for _, th := range m.running {
		requests, waiting, budget := th.outlook.Outlook()
		st.Running = append(st.Running, Running{
			ID: th.id, Channel: th.channel, Pages: int(th.pages.Load()), Depth: int(th.depth.Load()),
			Started: th.started, Elapsed: now.Sub(th.started), Resumed: int(th.resumed.Load()),
			Requests: requests, Waiting: waiting, Budget: budget,
		})
	}
	m.mu.Unlock()
	sort.Slice(st.Running, func(i, j int) bool {
		a, b := st.Running[i], st.Running[j]
		return a.Started.Before(b.Started) || (a.Started.Equal(b.Started) && a.ID < b.ID)
	})
	waiting, err := m.q.Waiting()
	if err != nil {
		return st, fmt.Errorf("task manager status: %w", err)
	}
	for _, r := range waiting {
		st.Queued = append(st.Queued, Queued{ID: r.ID, Channel: r.Task.Channel, Enqueued: r.Enqueued, Waited: r.Waited(now)})
	}
	return st, nil
}

// Load returns the tasks queued and running (the pieces of design.md §5) and
// the sum of their expected pages, for the overlay's RTL and RPL. Running
// tasks are counted from memory and waiting ones from the queue's FIFO,
// so finished tasks kept for history cost nothing.
func (m *Manager) Load() (pieces int, pages int64, err error) {
	m.mu.Lock()
	for _, th := range m.running {
		pieces++
		pages += int64(th.expected)
	}
	m.mu.Unlock()
	waiting, err := m.q.Waiting()
	if err != nil {
		return pieces, pages, fmt.Errorf("task manager load: %w", err)
	}
	for _, r := range waiting {
		pieces++
		pages += int64(r.Task.ExpectedPages)
	}
	return pieces, pages, nil
}

// Spare returns the tasks waiting in the queue and the crawl threads free
// to start one, for the overlay to move waiting tasks to peers with idle
// threads. Threads are free only while the manager serves.
func (m *Manager) Spare() (waiting, idle int, err error) {
	m.mu.Lock()
	if m.serving {
		idle = max(EffectiveThreads(m.threads, m.overload)-len(m.running), 0)
	}
	m.mu.Unlock()
	waiting, err = m.q.Len()
	if err != nil {
		return 0, idle, fmt.Errorf("task manager spare: %w", err)
	}
	return waiting, idle, nil
}

// Offer takes the waiting task that rank ranks highest, among those that
// could start now (no other task of their host runs here, and they do not
// wait to claim their lease again), were never started here, and rank
// accepts (nil: any, all alike), ties to the one that would start last,
// out of the queue to hand to another peer; nil when there is none. End
// the offer with Shared or Unoffer.
//
// A task started here stays: its host's lease is this peer's, or may be
// (granted as the process died), until released or lapsed, so a taker's
// claim would be refused, and a hand-back from the taker, which holds no
// lease, changes nothing at the manager; its checkpoint is here too.
func (m *Manager) Offer(rank func(*queue.Record) (float64, bool)) (*queue.Record, error) {
	may := m.startable()
	r, err := m.q.Offer(m.opts.Now(), func(r *queue.Record) (float64, bool) {
		if !may(r) || r.Attempts > 0 {
			return 0, false
		}
		if rank == nil {
			return 0, true
		}
		return rank(r)
	})
	if err != nil {
		return nil, fmt.Errorf("task manager: %w", err)
	}
	return r, nil
}

// Shared records that another peer took offered task id.
func (m *Manager) Shared(id string) error {
	if err := m.q.Shared(id, m.opts.Now()); err != nil {
		return fmt.Errorf("task manager: %w", err)
	}
	m.log.Info("Task shared with an idle peer", "task", id)
	return nil
}

// Unoffer returns offered task id to its place in the queue.
func (m *Manager) Unoffer(id string) error {
	if err := m.q.Unoffer(id); err != nil {
		return fmt.Errorf("task manager: %w", err)
	}
	m.Wake() // a thread may have come free meanwhile
	return nil
}

// Handover marks every queued and running task as handed over and returns
// the running ones and the queued ones, for the peer taking over this
// peer's zone. Call it after Serve has returned: a task still running when
// it is handed over has its result dropped.
func (m *Manager) Handover() (running, queued []*queue.Record, err error) {
	running, queued, err = m.q.Handover(m.opts.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("task manager: %w", err)
	}
	for _, r := range append(append([]*queue.Record(nil), running...), queued...) {
		m.log.Info("Task handed over", "task", r.ID, "channel", r.Task.Channel)
	}
	return running, queued, nil
}
