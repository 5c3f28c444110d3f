package app

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
)

// Status is the snapshot the local API, the web page and the tray show.
type Status struct {
	// State is "crawling" (tasks running), "idle" (nothing to do) or
	// "paused"; Reasons say in words why it is paused.
	State   string    `json:"state"`
	Reasons []string  `json:"reasons,omitempty"`
	Started time.Time `json:"started"`
	// Tasks are the running and queued tasks.
	Tasks taskmgr.Status `json:"tasks"`
	// PagesToday counts pages of tasks finished since local midnight.
	PagesToday int `json:"pages_today"`
	PagesTotal int `json:"pages_total"`
	// Credits counts results: Confirmed have a receipt, Pending wait for
	// their upload.
	Credits Credits `json:"credits"`
}

// Credits counts results by receipt.
type Credits struct {
	Confirmed int `json:"confirmed"`
	Pending   int `json:"pending"`
}

// Status returns the client's status now.
func (c *Client) Status() (Status, error) {
	now := c.opts.Now()
	st := Status{Started: c.started}
	var err error
	if st.Tasks, err = c.mgr.Status(); err != nil {
		return st, err
	}
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	_, err = c.q.Select(func(r *queue.Record) bool {
		if r.State != queue.Done {
			return false
		}
		pages := 0
		if r.Result != nil {
			pages = r.Result.Stats.PagesFetched
		}
		st.PagesTotal += pages
		if !r.Finished.Before(midnight) {
			st.PagesToday += pages
		}
		if r.Upload == queue.UploadRecorded || r.Upload == queue.UploadDelivered {
			st.Credits.Confirmed++
		} else {
			st.Credits.Pending++
		}
		return false
	})
	if err != nil {
		return st, fmt.Errorf("client status: %w", err)
	}
	st.State = "idle"
	if len(st.Tasks.Running) > 0 {
		st.State = "crawling"
	}
	return st, nil
}
