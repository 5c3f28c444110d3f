package manager

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/prom/promtest"
	"github.com/hivecrawl/hivecrawl/manager/metrics"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestMetricsScrape starts a manager with three channels (one paused) and
// a one-peer overlay, and scrapes GET /metrics over HTTP after each step:
// the text passes promtool's checks, and the figures follow what happened
// (a round issued and sent, leases granted then held, a result stored and
// chosen for a spot-check, a throughput point on the status page).
func TestMetricsScrape(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)} // the overlay peer checks leases by its own clock
	m := newManager(t, t.TempDir(), clk)
	go m.api.Serve(ctx)

	chs, err := m.AddSeeds([]string{"http://a.example/", "http://b.example/", "http://c.example/"})
	if err != nil || len(chs) != 3 {
		t.Fatalf("seeds: %d channels, %v", len(chs), err)
	}
	if _, err := m.db.Pause(chs[2].ID, true); err != nil {
		t.Fatal(err)
	}
	before := scrape(t, m)
	promtest.Want(t, before, map[string]float64{
		`hivecrawl_manager_channels{state="active"}`:         2,
		`hivecrawl_manager_channels{state="paused"}`:         1,
		`hivecrawl_manager_channels_due`:                     2,
		`hivecrawl_manager_tasks_issued_total{kind="round"}`: 0,
		`hivecrawl_manager_overlay_members`:                  0,
	})

	q, ph := onePeerOverlay(ctx, t, m)
	// The peer joins as a member, as over the entry protocol.
	m.members.Answer(ph.ID(), entry.Request{Op: entry.OpRenew})
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q.take()
	if len(tasks) != 2 {
		t.Fatalf("overlay peer got %d tasks, want 2", len(tasks))
	}
	n, err := m.db.Count()
	if err != nil {
		t.Fatal(err)
	}
	sent := scrape(t, m)
	promtest.Want(t, sent, map[string]float64{
		`hivecrawl_manager_channels{state="active"}` + "+" + `hivecrawl_manager_channels{state="paused"}` + "+" +
			`hivecrawl_manager_channels{state="removed"}`: float64(n),
		`hivecrawl_manager_channels_due`:                          0,
		`hivecrawl_manager_tasks_issued_total{kind="round"}`:      2,
		`hivecrawl_manager_tasks_open{kind="round"}`:              2,
		`hivecrawl_manager_task_sends_total{result="ok"}`:         2,
		`hivecrawl_manager_host_leases{state="granted"}`:          2,
		`hivecrawl_manager_host_leases{state="held"}`:             0,
		`hivecrawl_manager_overlay_members`:                       float64(len(m.members.Members())),
		`hivecrawl_manager_schedule_round_duration_seconds_count`: 1,
		`hivecrawl_manager_uploads_total{outcome="stored"}`:       0,
	})

	// The peer claims both leases and uploads one result: a new peer's
	// result is checked, so its credit is pending.
	pk := m.PublicKey()
	for i, tk := range tasks {
		if _, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[i], Proof: q.proof(tk.ID), TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
			t.Fatal(err)
		}
	}
	up := &upload.Uploader{Host: ph, Storage: m.ID(), Manager: pk, Nickname: "alice"}
	d := deliver(t, tasks[0], envs[0], []*task.Page{
		{URL: tasks[0].Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte("text of " + tasks[0].Channel)},
		{URL: tasks[0].Seeds[0] + "more", Status: 200, FetchedAt: clk.now(), Digest: 2, Text: []byte("more text of " + tasks[0].Channel)},
		{URL: tasks[0].Seeds[0] + "busy", Status: 429, FetchedAt: clk.now(), Error: "http_429"},
	})
	// The crawl stopped at the 429, which gave no Retry-After.
	d.Result.Strike = task.StrikeSlowDown
	d.Result.Stats.Errors = map[string]int{"http_429": 1, "parse": 1}
	if _, err := up.Upload(ctx, d); err != nil {
		t.Fatal(err)
	}
	stored := scrape(t, m)
	promtest.Want(t, stored, map[string]float64{
		`hivecrawl_manager_tasks_completed_total{kind="round"}`:    1,
		`hivecrawl_manager_tasks_open{kind="round"}`:               1,
		`hivecrawl_manager_host_leases{state="granted"}`:           0,
		`hivecrawl_manager_host_leases{state="held"}`:              1,
		`hivecrawl_manager_uploads_total{outcome="stored"}`:        1,
		`hivecrawl_manager_pages_stored_total`:                     2,
		`hivecrawl_manager_results_checked_total`:                  1,
		`hivecrawl_manager_results_pending`:                        1,
		`hivecrawl_manager_host_strikes_total{strike="slow_down"}`: 1,
		`hivecrawl_manager_host_strikes_total{strike="challenge"}`: 0,
		`hivecrawl_manager_host_answers_total{kind="http_429"}`:    1,
		`hivecrawl_manager_host_answers_total{kind="http_403"}`:    0,
	})
	if v := stored[`hivecrawl_manager_stored_text_bytes_total`]; v <= 0 {
		t.Errorf("stored text bytes %v after a stored upload", v)
	}

	// A minute on, the next round samples the totals: the status shows
	// the pages and the result stored in that minute.
	clk.add(metrics.ThroughputEvery)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	code, body := api(t, m, "GET", "/api/status", "", "", nil)
	var st operator.Status
	if err := json.Unmarshal(body, &st); code != http.StatusOK || err != nil {
		t.Fatalf("GET /api/status = %d %v", code, err)
	}
	// The first sample was the baseline, taken at the first round.
	wantRate := 2 / metrics.ThroughputEvery.Seconds()
	if len(st.Throughput) != 1 || st.Throughput[0].Pages != wantRate || st.Throughput[0].Tasks != wantRate/2 {
		t.Fatalf("throughput %+v, want one point of %.3f pages/s and %.3f tasks/s", st.Throughput, wantRate, wantRate/2)
	}
	if len(st.PushBack) != 1 || st.PushBack[0].Host != tasks[0].Host() || st.PushBack[0].Answers["http_429"] != 1 || st.PushBack[0].Strikes != 1 || st.PushBack[0].RestUntil.IsZero() {
		t.Fatalf("push-back on the status %+v, want %s with one 429, one strike, resting", st.PushBack, tasks[0].Host())
	}
	code, page := api(t, m, "GET", "/", "", "", nil)
	for _, w := range []string{`aria-label="pages stored per second"`, `aria-label="tasks (results stored) per second"`, "<polyline", "Hosts pushing back", "http_429 1"} {
		if code != http.StatusOK || !strings.Contains(string(page), w) {
			t.Fatalf("status page %d lacks %s:\n%s", code, w, page)
		}
	}
	if got := scrape(t, m)[`hivecrawl_manager_schedule_round_duration_seconds_count`]; got != 2 {
		t.Errorf("%v rounds timed, want 2", got)
	}

	// The metrics are behind the same Host check as the rest of the API,
	// and need no token.
	if code, _ := api(t, m, "GET", "/metrics", "evil.example", "", nil); code != http.StatusForbidden {
		t.Errorf("GET /metrics with a foreign Host = %d, want 403", code)
	}
}

// scrape gets the manager's metrics (promtest.Scrape).
func scrape(t *testing.T, m *Manager) map[string]float64 {
	t.Helper()
	return promtest.Scrape(t, m.APIURL()+"/metrics")
}

// TestMetricsDocumented: docs/operator/metrics.md lists every metric the manager
// serves, and the Grafana dashboard's expressions parse and use only
// those.
func TestMetricsDocumented(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newManager(t, t.TempDir(), &clock{t: time.Now()})
	go m.api.Serve(ctx)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	names := promtest.Names(scrape(t, m), "hivecrawl_manager_")
	if len(names) < 20 {
		t.Fatalf("%d manager metrics: %q", len(names), names)
	}
	promtest.Documented(t, names, "hivecrawl_manager_", "../docs/operator/grafana/hivecrawl.json", "../docs/operator/metrics.md")
}
