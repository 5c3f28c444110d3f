package manager

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
)

// maxLeaders bounds the leaderboard.
const maxLeaders = 20

// GroupStatus is one priority group.
type GroupStatus struct {
	Group    int           `json:"group"`
	Channels int           `json:"channels"`
	Interval time.Duration `json:"interval"`
}

// Status is what the status page and GET /api/status show.
type Status struct {
	Peer     string   `json:"peer"`
	Addrs    []string `json:"addrs"`
	Profile  string   `json:"profile"`
	Strategy string   `json:"strategy"`
	Channels int      `json:"channels"`
	// Crawled counts the channels with a result stored.
	Crawled int `json:"crawled"`
	// Groups are fastest-changing first.
	Groups  []GroupStatus   `json:"groups"`
	History []IntervalPoint `json:"history"`
	// Tasks counts issued tasks by state: open, done (a result was
	// stored), failed (lost: no result before the deadline), cancelled
	// (a crawler reported it cancelled the task).
	Tasks map[string]int `json:"tasks"`
	// Cancelled counts cancelled tasks by the reason the crawler gave
	// (expired, refused).
	Cancelled map[string]int `json:"cancelled"`
	// OldestOpen is when the oldest open task was issued; nil when none is
	// open.
	OldestOpen   *time.Time            `json:"oldest_open,omitempty"`
	Sent         int                   `json:"sent"`
	SendFailures int                   `json:"send_failures"`
	PeersNow     int                   `json:"peers_now"`
	PeersSeen    int                   `json:"peers_seen"`
	Stored       storage.Totals        `json:"stored"`
	Contributors []storage.Contributor `json:"contributors"`
	// Swarm is the overlay as the members report it, and where each
	// host's latest task went.
	Swarm Swarm `json:"swarm"`
	// Throughput is pages and results stored per second, a point a
	// minute over the last hour, oldest first.
	Throughput []ThroughputPoint `json:"throughput"`
	// PushBack are the hosts that pushed back most: resting ones first,
	// then by the 401, 403, 429, 503, other 5xx, timeout and challenge
	// answers counted (channels.PushBacks).
	PushBack []channels.PushBack `json:"push_back"`
}

// Status gathers the manager's figures.
func (m *Manager) Status() (Status, error) {
	st := Status{Peer: m.ID().String(), Addrs: m.Addrs(), Profile: m.ProfilePath(), Strategy: m.opts.Strategy}
	all, err := m.db.All(0)
	if err != nil {
		return st, err
	}
	st.Channels = len(all)
	m.mu.Lock()
	if m.strat != nil {
		for g, iv := range m.strat.Intervals() {
			st.Groups = append(st.Groups, GroupStatus{Group: g, Interval: iv})
		}
	}
	st.Sent, st.SendFailures, st.PeersSeen = m.sentOK, m.sentFail, len(m.peers)
	m.mu.Unlock()
	for _, c := range all {
		if c.Group < len(st.Groups) {
			st.Groups[c.Group].Channels++
		}
		if c.Updates > 0 {
			st.Crawled++
		}
	}
	if _, err := m.db.GetMeta(metaIntervals, &st.History); err != nil {
		return st, err
	}
	ts, err := m.db.Stats()
	if err != nil {
		return st, err
	}
	st.Tasks, st.Cancelled = ts.Counts, ts.Cancelled
	if !ts.OldestOpen.IsZero() {
		st.OldestOpen = &ts.OldestOpen
	}
	st.PeersNow = len(m.host.Network().Peers())
	if st.Stored, err = m.store.Totals(); err != nil {
		return st, err
	}
	if st.Contributors, err = m.store.Contributors(); err != nil {
		return st, err
	}
	if len(st.Contributors) > maxLeaders {
		st.Contributors = st.Contributors[:maxLeaders]
	}
	if st.Swarm, err = m.swarm(); err != nil {
		return st, err
	}
	st.Throughput = m.thru.Points()
	if st.PushBack, err = m.db.PushBacks(m.opts.Now(), maxLeaders); err != nil {
		return st, err
	}
	return st, nil
}

// chartColours are the groups' line colours, fastest first.
var chartColours = []string{"#d7263d", "#f46036", "#2e86ab", "#1b998b", "#6a4c93", "#555555"}

// Line is one group's polyline in the interval chart.
type Line struct {
	Colour string
	Points string
	Label  string
}

// Chart is the SVG chart of intervals over time: x is time, y the
// interval on a log scale.
type Chart struct {
	Width, Height int
	Lines         []Line
	// Ticks label the y axis.
	Ticks []Tick
	From  string
	To    string
}

// Tick is one y-axis label.
type Tick struct {
	Y     float64
	Label string
}

// chart draws hist; with fewer than one point it is empty.
func chart(hist []IntervalPoint) Chart {
	c := Chart{Width: 640, Height: 240}
	if len(hist) == 0 {
		return c
	}
	t0, t1 := hist[0].Time, hist[len(hist)-1].Time
	span := t1.Sub(t0)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range hist {
		for _, iv := range p.Intervals {
			if iv > 0 {
				lo = min(lo, math.Log(float64(iv)))
				hi = max(hi, math.Log(float64(iv)))
			}
		}
	}
	if math.IsInf(lo, 1) {
		return c
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	const pad = 40.0
	w, h := float64(c.Width)-2*pad, float64(c.Height)-2*pad
	x := func(t time.Time) float64 {
		if span <= 0 {
			return pad + w
		}
		return pad + w*float64(t.Sub(t0))/float64(span)
	}
	y := func(iv time.Duration) float64 { return pad + h*(hi-math.Log(float64(iv)))/(hi-lo) }
	groups := 0
	for _, p := range hist {
		groups = max(groups, len(p.Intervals))
	}
	for g := range groups {
		var sb strings.Builder
		for i, p := range hist {
			if g >= len(p.Intervals) || p.Intervals[g] <= 0 {
				continue
			}
			if i > 0 && span <= 0 {
				continue
			}
			fmt.Fprintf(&sb, "%.1f,%.1f ", x(p.Time), y(p.Intervals[g]))
			if len(hist) == 1 {
				fmt.Fprintf(&sb, "%.1f,%.1f ", pad, y(p.Intervals[g]))
			}
		}
		c.Lines = append(c.Lines, Line{Colour: chartColours[min(g, len(chartColours)-1)], Points: strings.TrimSpace(sb.String()), Label: fmt.Sprintf("group %d", g)})
	}
	for _, v := range []float64{lo, (lo + hi) / 2, hi} {
		iv := time.Duration(math.Exp(v)).Round(time.Second)
		c.Ticks = append(c.Ticks, Tick{Y: y(time.Duration(math.Exp(v))), Label: iv.String()})
	}
	c.From, c.To = t0.UTC().Format(time.DateTime), t1.UTC().Format(time.DateTime)
	return c
}
