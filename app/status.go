package app

import (
	"context"
	"fmt"

	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Status returns the snapshot the local API, the web page and the tray
// show: the governor's state and readings, the task manager's tasks, and
// pages and credits from the ledger (pages count once their result is
// delivered). It reads no task records, so it is cheap to poll.
func (c *Client) Status(ctx context.Context) (localapi.Status, error) {
	now := c.opts.Now()
	g := c.gov.Status()
	st := localapi.Status{
		Version:  c.opts.Version,
		Desktop:  c.opts.Desktop,
		Started:  c.started,
		State:    string(g.State),
		Reasons:  g.Reasons,
		Download: localapi.Rate{Current: g.DownRate, Cap: g.DownCap},
		Upload:   localapi.Rate{Current: g.UpRate, Cap: g.UpCap},
		CPU:      localapi.CPU{Own: g.OwnCPU, Other: g.OtherCPU, Cap: g.CPUCap, BusyThreshold: g.BusyThreshold},
		Memory:   localapi.Memory{RSS: g.RSS, Cap: g.MemoryCap},
		Disk:     localapi.Disk{Kept: g.Disk.Kept, Free: g.Disk.Free, Cap: g.DiskMax, MinFree: g.DiskMinFree},
		Preset:   c.cfg.Get().Preset(),
		Transfer: localapi.Transfer{
			Today: g.Usage.DayBytes, Month: g.Usage.MonthBytes, Total: g.Usage.TotalBytes,
			DailyQuota: g.DailyQuota, MonthlyQuota: g.MonthlyQuota,
		},
	}
	if err := c.cfg.Problem(); err != nil {
		st.ConfigProblem = err.Error()
	}
	if c.net != nil {
		st.Overlay = c.net.status(c.mode)
		if why := c.net.pauseReason(); why != "" {
			// No task comes until the program is updated or the network
			// keeps the politeness floor: that is the state, whatever the
			// governor allows, and its reason first.
			st.State = "paused"
			st.Reasons = append([]string{"Paused: " + why}, st.Reasons...)
		}
		if why := c.net.silence(); why != "" {
			st.Reasons = append(st.Reasons, why)
		}
	}
	if api := c.api.Load(); api != nil {
		st.UIURL = api.URL()
	}
	ts, err := c.mgr.Status()
	if err != nil {
		return st, err
	}
	st.Tasks = localapi.Tasks{Running: []localapi.RunningTask{}, Queued: len(ts.Queued), Threads: ts.Threads, Uploading: ts.Uploading, Challenged: g.Challenges, Ended: g.TasksEnded}
	for _, r := range ts.Running {
		left, d, ok := r.Left()
		rt := localapi.RunningTask{
			ID: r.ID, Channel: r.Channel, Pages: r.Pages, Depth: r.Depth, Started: r.Started,
			Known: r.Known(), PagesLeft: left,
		}
		if ok {
			rt.SecondsLeft = max(d.Seconds(), 1)
		}
		st.Tasks.Running = append(st.Tasks.Running, rt)
	}
	aside, err := c.q.SetAside()
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	for _, r := range aside {
		st.Tasks.SetAside = append(st.Tasks.SetAside, localapi.SetAsideTask{ID: r.ID, Channel: r.Task.Channel, Reason: r.Reason, When: r.Finished})
	}
	if c.finishing.Load() {
		// Crawling still, and the first thing to know about it.
		st.Finishing = true
		st.Reasons = append([]string{fmt.Sprintf("Finishing: no new task starts; Hivecrawl pauses once the %d running end", len(ts.Running))}, st.Reasons...)
	}
	if why := c.idleReason(st, len(ts.Queued)); why != "" {
		st.Reasons = append(st.Reasons, why)
	}
	// The crawl's open sockets, each holding a slot of the cap.
	st.Connections = localapi.Connections{Open: g.Conns, Cap: g.ConnsCap}

	tot, err := c.ledger.Totals(now)
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	st.Credits = localapi.Credits{Confirmed: tot.Confirmed, Pending: tot.Pending, Revoked: tot.Revoked, RecentAverage: tot.RecentAverage}
	st.Pages.Total = tot.PagesAccepted
	today, err := c.ledger.Days(now, now)
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	for _, d := range today {
		st.Pages.Today += d.PagesAccepted
	}
	return st, nil
}

// idleReason says, in a line, why a client that may crawl crawls nothing:
// "" while it crawls, or when another reason (a pause, a cap, the
// manager's silence) already says why.
func (c *Client) idleReason(st localapi.Status, queued int) string {
	if st.State != string(governor.Running) || len(st.Tasks.Running) > 0 || len(st.Reasons) > 0 {
		return ""
	}
	switch {
	case queued == 1:
		return "Idle: 1 task waits for its site's turn (one crawler at a time per site, and the politeness wait between them)"
	case queued > 1:
		return fmt.Sprintf("Idle: %d tasks wait for their sites' turn (one crawler at a time per site, and the politeness wait between them)", queued)
	case c.mode == ModeSolo:
		return "Idle: no site is due for a crawl (add one on the Solo mode page)"
	case c.mode == ModeLocal:
		return "Idle: every task is done"
	default:
		return "Idle: no task for this volunteer yet; the manager sends work as sites fall due"
	}
}
