package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Status returns the snapshot the local API, the web page and the tray
// show: the governor's state and readings, the task manager's tasks, and
// pages from the queue's finished tasks, credits from the ledger.
func (c *Client) Status(ctx context.Context) (localapi.Status, error) {
	now := c.opts.Now()
	g := c.gov.Status()
	st := localapi.Status{
		Version:  c.opts.Version,
		Started:  c.started,
		State:    string(g.State),
		Reasons:  g.Reasons,
		Download: localapi.Rate{Current: g.DownRate, Cap: g.DownCap},
		Upload:   localapi.Rate{Current: g.UpRate, Cap: g.UpCap},
		CPU:      localapi.CPU{Own: g.OwnCPU, Other: g.OtherCPU, Cap: g.CPUCap, BusyThreshold: g.BusyThreshold},
		Memory:   localapi.Memory{RSS: g.RSS, Cap: g.MemoryCap},
		Transfer: localapi.Transfer{
			Today: g.Usage.DayBytes, Month: g.Usage.MonthBytes, Total: g.Usage.TotalBytes,
			DailyQuota: g.DailyQuota, MonthlyQuota: g.MonthlyQuota,
		},
	}
	if err := c.cfg.Problem(); err != nil {
		st.ConfigProblem = err.Error()
	}
	if api := c.api.Load(); api != nil {
		st.UIURL = api.URL()
	}
	ts, err := c.mgr.Status()
	if err != nil {
		return st, err
	}
	st.Tasks = localapi.Tasks{Queued: len(ts.Queued), Threads: ts.Threads}
	for _, r := range ts.Running {
		st.Tasks.Running = append(st.Tasks.Running, localapi.RunningTask{
			ID: r.ID, Channel: r.Channel, Pages: r.Pages, Depth: r.Depth, Started: r.Started,
		})
	}
	// Each running task holds one crawl connection.
	st.Connections = localapi.Connections{Open: len(ts.Running), Cap: g.ConnsCap}

	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	_, err = c.q.Select(func(r *queue.Record) bool {
		if r.State != queue.Done {
			return false
		}
		var pages int64
		if r.Result != nil {
			pages = int64(r.Result.Stats.PagesFetched)
		}
		st.Pages.Total += pages
		if !r.Finished.Before(midnight) {
			st.Pages.Today += pages
		}
		return false
	})
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	tot, err := c.ledger.Totals(now)
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	st.Credits = localapi.Credits{Confirmed: tot.Confirmed, Pending: tot.Pending, RecentAverage: tot.RecentAverage}
	return st, nil
}
