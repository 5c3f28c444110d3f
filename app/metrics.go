package app

import (
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/internal/prom"
)

// metricsHandler serves the client's Prometheus metrics (docs/operator/metrics.md)
// while the metrics setting is on; off, /metrics is not found, as it was
// before the setting existed. The local API's Host check applies, and a
// scrape needs no token: it changes nothing.
func (c *Client) metricsHandler() http.Handler {
	h := prom.Handler(prom.NewRegistry(clientCollector{c}), c.log)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.cfg.Get().Metrics {
			http.Error(w, "metrics are off: turn them on with 'hivecrawl set metrics=on'", http.StatusNotFound)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// The client's metrics, read when Prometheus scrapes. A cap or quota of 0
// is no cap.
var (
	descDownRate = prometheus.NewDesc("hivecrawl_client_download_bytes_per_second",
		"Download rate of the crawls over the governor's last second.", nil, nil)
	descUpRate = prometheus.NewDesc("hivecrawl_client_upload_bytes_per_second",
		"Upload rate of the results over the governor's last second.", nil, nil)
	descDownBytes = prometheus.NewDesc("hivecrawl_client_download_bytes_total",
		"Bytes the crawls downloaded since the client started.", nil, nil)
	descUpBytes = prometheus.NewDesc("hivecrawl_client_upload_bytes_total",
		"Bytes of results uploaded since the client started.", nil, nil)
	descTransfer = prometheus.NewDesc("hivecrawl_client_transfer_bytes",
		"Bytes transferred (down plus up) in the quota's current period: day or month.", []string{"period"}, nil)
	descQuota = prometheus.NewDesc("hivecrawl_client_transfer_quota_bytes",
		"Transfer quota per period, day or month (0 = none).", []string{"period"}, nil)
	descDownCap = prometheus.NewDesc("hivecrawl_client_download_cap_bytes_per_second",
		"Download cap in force, the crawl schedule's window's when it sets one (0 = no cap).", nil, nil)
	descUpCap = prometheus.NewDesc("hivecrawl_client_upload_cap_bytes_per_second",
		"Upload cap in force (0 = no cap).", nil, nil)
	descCPUCap = prometheus.NewDesc("hivecrawl_client_cpu_cap_ratio",
		"CPU cap on the client's own process, as a share of the whole machine (0 = no cap).", nil, nil)
	descCPU = prometheus.NewDesc("hivecrawl_client_cpu_ratio",
		"CPU the client's process used over the last second, as a share of the whole machine.", nil, nil)
	descOtherCPU = prometheus.NewDesc("hivecrawl_client_other_cpu_ratio",
		"CPU other programs used over the last second, as a share of the whole machine.", nil, nil)
	descMemoryCap = prometheus.NewDesc("hivecrawl_client_memory_cap_bytes",
		"Resident memory cap; crawling pauses above it (0 = no cap).", nil, nil)
	descConnsCap = prometheus.NewDesc("hivecrawl_client_connections_cap",
		"Open crawl connections allowed (0 = no cap).", nil, nil)
	descThreads = prometheus.NewDesc("hivecrawl_client_task_threads",
		"Tasks crawled at once at most (CL, or OT when lower).", nil, nil)
	descPaused = prometheus.NewDesc("hivecrawl_client_paused",
		"1 while crawling is paused for the reason: held (damaged settings), paused (by the volunteer), snoozed, schedule, daily_quota, monthly_quota, busy (other programs' CPU), memory or challenged (sites took this computer for a bot).", []string{"reason"}, nil)
	descThrottled = prometheus.NewDesc("hivecrawl_client_throttled",
		"1 while crawling runs held back by the CPU cap or at a bandwidth cap.", nil, nil)
	descQueued = prometheus.NewDesc("hivecrawl_client_tasks_queued",
		"Tasks waiting in the queue.", nil, nil)
	descRunning = prometheus.NewDesc("hivecrawl_client_tasks_running",
		"Tasks being crawled.", nil, nil)
	descUploading = prometheus.NewDesc("hivecrawl_client_tasks_uploading",
		"Results waiting for or in delivery.", nil, nil)
	descSetAside = prometheus.NewDesc("hivecrawl_client_tasks_set_aside",
		"Tasks set aside because the client stopped unexpectedly each time it crawled them.", nil, nil)
	descDone = prometheus.NewDesc("hivecrawl_client_tasks_done_total",
		"Tasks whose result was delivered and receipted, as the credits ledger counts them.", nil, nil)
	descFailed = prometheus.NewDesc("hivecrawl_client_tasks_failed_total",
		"Tasks given up since the client started, by reason: refused (the queue was full) or expired (waited longer than its recrawl interval).", []string{"reason"}, nil)
	descPages = prometheus.NewDesc("hivecrawl_client_pages_total",
		"Pages of delivered results that were accepted, as the credits ledger counts them.", nil, nil)
	descCredits = prometheus.NewDesc("hivecrawl_client_credits",
		"Credit in the ledger, by state: confirmed, pending (waiting for a spot-check) or revoked (failed one).", []string{"state"}, nil)
	descRecent = prometheus.NewDesc("hivecrawl_client_credits_recent_average",
		"Confirmed credit per day, averaged with a 7-day half-life (as BOINC's RAC).", nil, nil)
)

// clientCollector reads the governor, the task manager, the queue and
// the credits ledger when Prometheus scrapes.
type clientCollector struct{ c *Client }

var _ prometheus.Collector = clientCollector{}

// Describe sends every metric's description.
func (cc clientCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descDownRate, descUpRate, descDownBytes, descUpBytes, descTransfer, descQuota,
		descDownCap, descUpCap, descCPUCap, descCPU, descOtherCPU, descMemoryCap, descConnsCap, descThreads,
		descPaused, descThrottled, descQueued, descRunning, descUploading, descSetAside, descDone, descFailed,
		descPages, descCredits, descRecent} {
		ch <- d
	}
}

// Collect reads the figures and sends them; a part that cannot be read is
// reported as an error for its metrics, the others are still served.
func (cc clientCollector) Collect(ch chan<- prometheus.Metric) {
	c := cc.c
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	g := c.gov.Status()
	gauge(descDownRate, float64(g.DownRate))
	gauge(descUpRate, float64(g.UpRate))
	counter(descDownBytes, float64(c.gov.Down().Total()))
	counter(descUpBytes, float64(c.gov.Up().Total()))
	gauge(descTransfer, float64(g.Usage.DayBytes), "day")
	gauge(descTransfer, float64(g.Usage.MonthBytes), "month")
	gauge(descQuota, float64(g.DailyQuota), "day")
	gauge(descQuota, float64(g.MonthlyQuota), "month")
	gauge(descDownCap, float64(g.DownCap))
	gauge(descUpCap, float64(g.UpCap))
	gauge(descCPUCap, g.CPUCap/100)
	gauge(descCPU, g.OwnCPU/100)
	gauge(descOtherCPU, g.OtherCPU/100)
	gauge(descMemoryCap, float64(g.MemoryCap))
	gauge(descConnsCap, float64(g.ConnsCap))
	for _, k := range governor.PauseKinds {
		gauge(descPaused, boolValue(slices.Contains(g.Pauses, k)), k)
	}
	gauge(descThrottled, boolValue(g.State == governor.Throttled))

	if ts, err := c.mgr.Status(); err != nil {
		ch <- prometheus.NewInvalidMetric(descQueued, err)
	} else {
		gauge(descThreads, float64(ts.Threads))
		gauge(descQueued, float64(len(ts.Queued)))
		gauge(descRunning, float64(len(ts.Running)))
		gauge(descUploading, float64(ts.Uploading))
		counter(descFailed, float64(ts.Refused), "refused")
		counter(descFailed, float64(ts.Expired), "expired")
	}
	if aside, err := c.q.SetAside(); err != nil {
		ch <- prometheus.NewInvalidMetric(descSetAside, err)
	} else {
		gauge(descSetAside, float64(len(aside)))
	}
	if t, err := c.ledger.Totals(c.opts.Now()); err != nil {
		ch <- prometheus.NewInvalidMetric(descDone, err)
	} else {
		counter(descDone, float64(t.Receipts))
		counter(descPages, float64(t.PagesAccepted))
		gauge(descCredits, t.Confirmed, "confirmed")
		gauge(descCredits, t.Pending, "pending")
		gauge(descCredits, t.Revoked, "revoked")
		gauge(descRecent, t.RecentAverage)
	}
}

// boolValue is 1 for true, 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
