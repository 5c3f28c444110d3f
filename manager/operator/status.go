package operator

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

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

// IntervalPoint is the groups' intervals at one time, for the chart.
type IntervalPoint struct {
	Time      time.Time       `json:"time"`
	Intervals []time.Duration `json:"intervals"`
}

// ThroughputPoint is what the storage module stored per second between
// the sample before it and Time.
type ThroughputPoint struct {
	Time time.Time `json:"time"`
	// Pages are pages stored per second; Tasks results (one task's
	// upload) stored per second.
	Pages float64 `json:"pages_per_second"`
	Tasks float64 `json:"tasks_per_second"`
}

// Plot is one throughput series drawn as an SVG polyline: x is time, y
// the rate from 0 at the bottom to Max at the top.
type Plot struct {
	Width, Height int
	Label         string
	Points        string
	// Max labels the top of the y axis, Last the latest rate.
	Max, Last string
	From, To  string
}

// plot draws pick's series of points; without points it has no Points.
func plot(points []ThroughputPoint, label string, pick func(ThroughputPoint) float64) Plot {
	p := Plot{Width: 640, Height: 120, Label: label}
	if len(points) == 0 {
		return p
	}
	top := 0.0
	for _, pt := range points {
		top = max(top, pick(pt))
	}
	scale := top
	if scale <= 0 {
		scale = 1
	}
	const pad = 20.0
	w, h := float64(p.Width)-2*pad, float64(p.Height)-2*pad
	t0, t1 := points[0].Time, points[len(points)-1].Time
	span := t1.Sub(t0)
	x := func(t time.Time) float64 {
		if span <= 0 {
			return pad + w
		}
		return pad + w*float64(t.Sub(t0))/float64(span)
	}
	y := func(v float64) float64 { return pad + h*(1-v/scale) }
	var sb strings.Builder
	if len(points) == 1 {
		fmt.Fprintf(&sb, "%.1f,%.1f ", pad, y(pick(points[0])))
	}
	for _, pt := range points {
		fmt.Fprintf(&sb, "%.1f,%.1f ", x(pt.Time), y(pick(pt)))
	}
	p.Points = strings.TrimSpace(sb.String())
	p.Max, p.Last = formatRate(top), formatRate(pick(points[len(points)-1]))
	p.From, p.To = t0.UTC().Format(time.TimeOnly), t1.UTC().Format(time.TimeOnly)
	return p
}

// formatRate writes a rate per second with two significant decimals for
// small ones: "12", "0.35".
func formatRate(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Swarm is the manager's view of the overlay, from the members' reports
// and the tasks it sent.
type Swarm struct {
	// Assignment is how hosts go to peers (AssignCAN or AssignHash).
	Assignment string      `json:"assignment"`
	Peers      []SwarmPeer `json:"peers"`
	Hosts      []SwarmHost `json:"hosts"`
	// Bounds are the CAN space's bounds hosts and members are mapped with
	// and BoundsEpoch their training (0: the operator's, untrained); nil
	// without coordinate-aware placement.
	Bounds      *coord.Bounds `json:"bounds,omitempty"`
	BoundsEpoch uint64        `json:"bounds_epoch,omitempty"`
}

// SwarmPeer is one member peer.
type SwarmPeer struct {
	ID    string      `json:"id"`
	Zones []entry.Box `json:"zones"`
	Coord []float64   `json:"coord,omitempty"`
}

// SwarmHost is one channel's host: its point in the CAN space and the
// peer that queued its latest task.
type SwarmHost struct {
	Channel string    `json:"channel"`
	Point   []float64 `json:"point"`
	Owner   string    `json:"owner,omitempty"`
	State   string    `json:"state,omitempty"`
}

// SwarmMap is the swarm view drawn as SVG: the CAN space projected on its
// first two dimensions, each peer's zones in its colour, each host at its
// point with a line to the zone of the peer that queued its latest task.
type SwarmMap struct {
	Size  int
	Zones []MapZone
	Hosts []MapHost
	// Peers is the legend: one entry per member, in the order of Swarm.Peers.
	Peers []MapPeer
}

// MapPeer is one member in the drawing: its colour, where its host lines
// meet (the centre of its first zone) and how much it holds and crawls.
type MapPeer struct {
	Peer   string
	Colour string
	X, Y   float64
	// Placed is set when the peer has a zone to draw.
	Placed bool
	Zones  int
	Hosts  int
}

// MapZone is one zone rectangle.
type MapZone struct {
	X, Y, W, H float64
	Colour     string
	Peer       string
}

// MapHost is one host dot and its line to its peer.
type MapHost struct {
	X, Y, PX, PY float64
	Colour       string
	Channel      string
	Linked       bool
}

// swarmMap lays sw out in a square of size pixels.
func swarmMap(sw Swarm, size int) SwarmMap {
	sm := SwarmMap{Size: size}
	s := float64(size)
	index := map[string]int{} // peer ID → its entry in sm.Peers
	for i, p := range sw.Peers {
		c := peerColour(i)
		index[p.ID] = i
		sm.Peers = append(sm.Peers, MapPeer{Peer: shortID(p.ID), Colour: c, Zones: len(p.Zones)})
		for j, z := range p.Zones {
			if len(z.Lo) < 2 {
				continue
			}
			mz := MapZone{X: z.Lo[0] * s, Y: (1 - z.Hi[1]) * s, W: (z.Hi[0] - z.Lo[0]) * s, H: (z.Hi[1] - z.Lo[1]) * s,
				Colour: c, Peer: shortID(p.ID)}
			sm.Zones = append(sm.Zones, mz)
			if j == 0 {
				sm.Peers[i].X, sm.Peers[i].Y, sm.Peers[i].Placed = mz.X+mz.W/2, mz.Y+mz.H/2, true
			}
		}
	}
	for _, h := range sw.Hosts {
		if len(h.Point) < 2 {
			continue
		}
		mh := MapHost{X: h.Point[0] * s, Y: (1 - h.Point[1]) * s, Colour: "#777", Channel: h.Channel}
		if i, ok := index[h.Owner]; ok && sm.Peers[i].Placed {
			p := &sm.Peers[i]
			mh.PX, mh.PY, mh.Colour, mh.Linked = p.X, p.Y, p.Colour, true
			p.Hosts++
		}
		sm.Hosts = append(sm.Hosts, mh)
	}
	return sm
}

// peerColour is the i-th peer's colour: the palette's, then hues spread
// by the golden angle.
func peerColour(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	return fmt.Sprintf("hsl(%d,65%%,45%%)", (i*137)%360)
}

// shortID is the tail of a peer ID, as people tell peers apart.
func shortID(id string) string {
	if len(id) > 8 {
		return "…" + id[len(id)-6:]
	}
	return id
}

// OptedOut is what opting one name out did.
type OptedOut struct {
	// Name is the host or registrable domain as the list keeps it;
	// Domain says it covers the hosts under it.
	Name   string `json:"name"`
	Domain bool   `json:"domain,omitempty"`
	// Known is set when it was on the list already.
	Known bool `json:"known,omitempty"`
	// Channels are the channels removed; Stopped the running tasks whose
	// crawlers are told to stop at once.
	Channels []string `json:"channels,omitempty"`
	Stopped  []string `json:"stopped,omitempty"`
}

// chartColours are the groups' line colours, fastest first.
var chartColours = []string{"#d7263d", "#f46036", "#2e86ab", "#1b998b", "#6a4c93", "#555555"}

// palette tells up to ten peers apart at a glance (Tableau 10).
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
