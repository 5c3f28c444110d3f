// Package metrics keeps the manager's figures: its Prometheus metrics
// (GET /metrics on the local API; docs/operator/metrics.md lists them)
// and the status page's throughput over the last hour.
//
// What the databases and the overlay hold is read when Prometheus scrapes
// (Sources); only what an event alone knows is counted as it happens:
// schedule rounds, and the tasks this manager issued, saw completed, lost
// or cancelled. Those counters are this process's, from its start, so the
// managers sharing one database each count their own share, while what is
// read from a shared database is the whole network's. No label names a
// peer, host or channel: their number has no bound.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivecrawl/hivecrawl/internal/prom"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/rounds"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/task"
)

// Task kinds, the values of the kind label.
const (
	KindRound = "round" // a task of a channel's crawl round
	KindCheck = "check" // a spot-check of a result
)

// TaskKind is t's kind label.
func TaskKind(t channels.Task) string {
	if t.Checks != "" {
		return KindCheck
	}
	return KindRound
}

// roundBuckets are the schedule round's histogram buckets, in seconds: a
// round of a small network takes milliseconds, one that waits on sends to
// the overlay (dispatch.SendTimeout each) up to minutes.
var roundBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120}

// Metrics are the manager's registry and its event counters.
type Metrics struct {
	reg         *prometheus.Registry
	round       prometheus.Histogram
	roundErrors prometheus.Counter
	// issued, completed and lost count tasks by kind; cancelled by kind
	// and the crawler's reason.
	issued, completed, lost, cancelled *prometheus.CounterVec
	// strikes count results that stopped to spare their host, by
	// strike; answers the pages of stored results that a host refused,
	// failed or challenged, by kind (channels.AnswerKinds).
	strikes, answers *prometheus.CounterVec
}

// strikeLabel is the strike label's value of a task.Result.Strike.
func strikeLabel(s string) string {
	switch s {
	case task.StrikeSlowDown:
		return "slow_down"
	case task.StrikeErrors, task.StrikeChallenge:
		return s
	}
	return "slow_down" // a newer client's kind: the manager rests it as one
}

// RoundsIssued counts n tasks of crawl rounds issued.
func (x *Metrics) RoundsIssued(n int) { x.issued.WithLabelValues(KindRound).Add(float64(n)) }

// Registry is the registry the local API serves.
func (x *Metrics) Registry() *prometheus.Registry { return x.reg }

// The task book's outcomes (taskbook.Counts).

func (x *Metrics) Completed(t channels.Task, fb channels.Feedback) {
	x.completed.WithLabelValues(TaskKind(t)).Inc()
	x.pushBack(fb)
}

func (x *Metrics) Cancelled(t channels.Task, reason string) {
	x.cancelled.WithLabelValues(TaskKind(t), reason).Inc()
}

func (x *Metrics) Lost(t channels.Task) { x.lost.WithLabelValues(TaskKind(t)).Inc() }

func (x *Metrics) CheckIssued() { x.issued.WithLabelValues(KindCheck).Inc() }

// pushBack counts what a stored result says its host pushed back with.
func (x *Metrics) pushBack(fb channels.Feedback) {
	if fb.Strike != "" {
		x.strikes.WithLabelValues(strikeLabel(fb.Strike)).Inc()
	}
	for k, n := range fb.Stats.Errors {
		if kind, ok := channels.AnswerKind(k); ok && n > 0 {
			x.answers.WithLabelValues(kind).Add(float64(n))
		}
	}
}

// Sources are what the metrics read when Prometheus scrapes: functions,
// as the parts they read are built after the metrics that count their
// events.
type Sources struct {
	DB *channels.DB
	// Interval is the schedule's change interval of a channel
	// (rounds.Schedule.Interval).
	Interval func(index int) (time.Duration, bool)
	// Totals are the storage module's (storage.Storage.Totals).
	Totals func() (storage.Totals, error)
	// Sends are the tasks handed to the overlay and the sends that
	// failed (dispatch.Dispatcher.Counts).
	Sends func() (ok, failed int)
	// Members counts the overlay's members, Peers the connected peers.
	Members, Peers func() int
	Now            func() time.Time
}

// New returns the metrics, every series at 0, reading src at scrapes.
func New(src Sources) *Metrics {
	byKind := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append([]string{"kind"}, labels...))
	}
	x := &Metrics{
		round: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hivecrawl_manager_schedule_round_duration_seconds",
			Help:    "Time one schedule round (operator.Tick) took: expiring lost tasks, ranking channels, issuing due rounds and spot-checks, sending tasks.",
			Buckets: roundBuckets,
		}),
		roundErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hivecrawl_manager_schedule_round_errors_total",
			Help: "Schedule rounds that ended with an error (logged as \"Schedule round failed\").",
		}),
		issued:    byKind("hivecrawl_manager_tasks_issued_total", "Tasks this manager issued, by kind: round (a channel's crawl) or check (a spot-check of a result)."),
		completed: byKind("hivecrawl_manager_tasks_completed_total", "Tasks whose first result this manager stored, by kind."),
		lost:      byKind("hivecrawl_manager_tasks_lost_total", "Tasks this manager counted lost (no result before their lease or deadline ran out), by kind."),
		cancelled: byKind("hivecrawl_manager_tasks_cancelled_total", "Tasks a crawler reported cancelled, by kind and reason: expired (waited longer than its interval) or refused (the crawler's queue was full).", "reason"),
		strikes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hivecrawl_manager_host_strikes_total",
			Help: "Stored results whose crawl stopped to spare its host, by strike: slow_down (429 or 503 without Retry-After), errors (a run of server errors or timeouts) or challenge (a firewall's challenge or a run of refusals); each rests the host."}, []string{"strike"}),
		answers: byKind("hivecrawl_manager_host_answers_total", "Pages of stored results that their host refused, failed or challenged, by kind: http_401, http_403, http_429, http_503, http_5xx (other 5xx), timeout or challenge. The status page names the hosts."),
	}
	for _, s := range []string{"slow_down", task.StrikeErrors, task.StrikeChallenge} {
		x.strikes.WithLabelValues(s)
	}
	for _, k := range channels.AnswerKinds {
		x.answers.WithLabelValues(k)
	}
	// Every series exists from the start, at 0, so rate() sees the first
	// increase.
	for _, k := range []string{KindRound, KindCheck} {
		x.issued.WithLabelValues(k)
		x.completed.WithLabelValues(k)
		x.lost.WithLabelValues(k)
		for _, r := range []string{report.Expired, report.Refused, report.HandedBack} {
			x.cancelled.WithLabelValues(k, r)
		}
	}
	x.reg = prom.NewRegistry(x.round, x.roundErrors, x.issued, x.completed, x.lost, x.cancelled, x.strikes, x.answers, stateCollector{src})
	return x
}

// RoundDone records a schedule round that took d and ended with err.
func (x *Metrics) RoundDone(d time.Duration, err error) {
	x.round.Observe(d.Seconds())
	if err != nil {
		x.roundErrors.Inc()
	}
}

// The metrics stateCollector reads at scrape time.
var (
	descChannels = prometheus.NewDesc("hivecrawl_manager_channels",
		"Channels in the channel database, by state: active, paused (by its user) or removed.", []string{"state"}, nil)
	descDue = prometheus.NewDesc("hivecrawl_manager_channels_due",
		"Channels whose next crawl round is due: the next schedule round starts them.", nil, nil)
	descOpen = prometheus.NewDesc("hivecrawl_manager_tasks_open",
		"Issued tasks without a result, not yet counted lost, by kind.", []string{"kind"}, nil)
	descLeases = prometheus.NewDesc("hivecrawl_manager_host_leases",
		"Web hosts whose lease is live, by state: granted (waiting for a crawler's claim) or held (claimed by a crawler, not expired).", []string{"state"}, nil)
	descSends = prometheus.NewDesc("hivecrawl_manager_task_sends_total",
		"Tasks handed to the overlay since the manager started, by result: ok, or failed (sent again at the next round).", []string{"result"}, nil)
	descMembers = prometheus.NewDesc("hivecrawl_manager_overlay_members",
		"Overlay members that renewed their entry recently.", nil, nil)
	descPeers = prometheus.NewDesc("hivecrawl_manager_connected_peers",
		"Peers connected to the manager's libp2p host.", nil, nil)
	descUploads = prometheus.NewDesc("hivecrawl_manager_uploads_total",
		"Uploads the storage module received, by outcome: stored, duplicate (the task's result was stored already) or refused.", []string{"outcome"}, nil)
	descPages = prometheus.NewDesc("hivecrawl_manager_pages_stored_total",
		"Pages accepted in stored uploads (new, changed and confirmed unchanged).", nil, nil)
	descRecords = prometheus.NewDesc("hivecrawl_manager_warc_records_total",
		"WARC records written.", nil, nil)
	descTextBytes = prometheus.NewDesc("hivecrawl_manager_stored_text_bytes_total",
		"Bytes of extracted page text in stored uploads.", nil, nil)
	descChecked = prometheus.NewDesc("hivecrawl_manager_results_checked_total",
		"Stored results chosen for a spot-check; their credit is pending until the verdict.", nil, nil)
	descUnchecked = prometheus.NewDesc("hivecrawl_manager_results_unchecked_total",
		"Stored results let through without a spot-check on their peer's record.", nil, nil)
	descValidated = prometheus.NewDesc("hivecrawl_manager_results_validated_total",
		"Spot-check verdicts, by verdict: confirmed (valid) or revoked (invalid: credit revoked, pages quarantined).", []string{"verdict"}, nil)
	descPending = prometheus.NewDesc("hivecrawl_manager_results_pending",
		"Checked results waiting for their verdict.", nil, nil)
	descCheckFetches = prometheus.NewDesc("hivecrawl_manager_check_fetches_total",
		"Pages re-fetched by spot-checks.", nil, nil)
)

// stateCollector reads the channel database, the storage totals and the
// overlay when Prometheus scrapes. A part that cannot be read is reported
// as an error for its metrics; the others are still served.
type stateCollector struct{ src Sources }

var _ prometheus.Collector = stateCollector{}

// Describe sends every metric's description.
func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descChannels, descDue, descOpen, descLeases, descSends, descMembers, descPeers,
		descUploads, descPages, descRecords, descTextBytes, descChecked, descUnchecked, descValidated, descPending, descCheckFetches} {
		ch <- d
	}
}

// Collect reads the figures and sends them.
func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.src.Now()
	if err := c.channels(ch, now); err != nil {
		ch <- prometheus.NewInvalidMetric(descChannels, err)
	}
	if err := c.tasks(ch, now); err != nil {
		ch <- prometheus.NewInvalidMetric(descOpen, err)
	}
	if err := c.storage(ch); err != nil {
		ch <- prometheus.NewInvalidMetric(descUploads, err)
	}
	ok, failed := c.src.Sends()
	ch <- prometheus.MustNewConstMetric(descSends, prometheus.CounterValue, float64(ok), "ok")
	ch <- prometheus.MustNewConstMetric(descSends, prometheus.CounterValue, float64(failed), "failed")
	ch <- prometheus.MustNewConstMetric(descMembers, prometheus.GaugeValue, float64(c.src.Members()))
	ch <- prometheus.MustNewConstMetric(descPeers, prometheus.GaugeValue, float64(c.src.Peers()))
}

// channels sends the channels by state and those due, as the next round
// would see them: a channel the strategy does not know yet is due unless
// paused or removed.
func (c stateCollector) channels(ch chan<- prometheus.Metric, now time.Time) error {
	all, err := c.src.DB.All(0)
	if err != nil {
		return err
	}
	var active, paused, removed, dueNow int
	for _, chn := range all {
		switch {
		case chn.Removed():
			removed++
		case chn.Paused:
			paused++
		default:
			active++
		}
		iv, _ := c.src.Interval(chn.Index)
		if rounds.Due(chn, iv, now) {
			dueNow++
		}
	}
	ch <- prometheus.MustNewConstMetric(descChannels, prometheus.GaugeValue, float64(active), "active")
	ch <- prometheus.MustNewConstMetric(descChannels, prometheus.GaugeValue, float64(paused), "paused")
	ch <- prometheus.MustNewConstMetric(descChannels, prometheus.GaugeValue, float64(removed), "removed")
	ch <- prometheus.MustNewConstMetric(descDue, prometheus.GaugeValue, float64(dueNow))
	return nil
}

// tasks sends the open tasks by kind and the live host leases. A lease
// counts while its claim or its start-by time is ahead (the clock skew
// allowance the manager adds before it grants the host again is left
// out: this is what crawlers are doing, not what the manager promises).
func (c stateCollector) tasks(ch chan<- prometheus.Metric, now time.Time) error {
	open, err := c.src.DB.Open()
	if err != nil {
		return err
	}
	kinds := map[string]int{KindRound: 0, KindCheck: 0}
	var granted, held int
	for _, t := range open {
		kinds[TaskKind(t)]++
		switch {
		case t.Epoch == 0:
		case t.Holder != "" && !t.Released:
			if now.Before(t.Expires) {
				held++
			}
		case now.Before(t.StartBy):
			granted++
		}
	}
	for k, n := range kinds {
		ch <- prometheus.MustNewConstMetric(descOpen, prometheus.GaugeValue, float64(n), k)
	}
	ch <- prometheus.MustNewConstMetric(descLeases, prometheus.GaugeValue, float64(granted), "granted")
	ch <- prometheus.MustNewConstMetric(descLeases, prometheus.GaugeValue, float64(held), "held")
	return nil
}

// storage sends the storage module's totals, which it keeps in its index
// across restarts.
func (c stateCollector) storage(ch chan<- prometheus.Metric) error {
	t, err := c.src.Totals()
	if err != nil {
		return err
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	counter(descUploads, float64(t.Uploads), "stored")
	counter(descUploads, float64(t.Duplicates), "duplicate")
	counter(descUploads, float64(t.Refused), "refused")
	counter(descPages, float64(t.Pages))
	counter(descRecords, float64(t.Records))
	counter(descTextBytes, float64(t.Bytes))
	counter(descChecked, float64(t.Checked))
	counter(descUnchecked, float64(t.Unchecked))
	counter(descValidated, float64(t.Passed), "confirmed")
	counter(descValidated, float64(t.Failed), "revoked")
	counter(descCheckFetches, float64(t.CheckFetches))
	ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(max(0, t.Checked-t.Passed-t.Failed)))
	return nil
}
