package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hivecrawl/hivecrawl/manager/entry"
	"github.com/hivecrawl/hivecrawl/manager/lease"
	"github.com/hivecrawl/hivecrawl/manager/storage"
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
	go m.api.serve(ctx)

	chs, err := m.AddSeeds([]string{"http://a.example/", "http://b.example/", "http://c.example/"})
	if err != nil || len(chs) != 3 {
		t.Fatalf("seeds: %d channels, %v", len(chs), err)
	}
	if _, err := m.db.Pause(chs[2].ID, true); err != nil {
		t.Fatal(err)
	}
	before := scrape(t, m)
	want(t, before, map[string]float64{
		`hivecrawl_manager_channels{state="active"}`:         2,
		`hivecrawl_manager_channels{state="paused"}`:         1,
		`hivecrawl_manager_channels_due`:                     2,
		`hivecrawl_manager_tasks_issued_total{kind="round"}`: 0,
		`hivecrawl_manager_overlay_members`:                  0,
	})

	q, ph := onePeerOverlay(ctx, t, m)
	// The peer joins as a member, as over the entry protocol.
	m.entry.Answer(ph.ID(), entry.Request{Member: true})
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
	want(t, sent, map[string]float64{
		`hivecrawl_manager_channels{state="active"}` + "+" + `hivecrawl_manager_channels{state="paused"}` + "+" +
			`hivecrawl_manager_channels{state="removed"}`: float64(n),
		`hivecrawl_manager_channels_due`:                          0,
		`hivecrawl_manager_tasks_issued_total{kind="round"}`:      2,
		`hivecrawl_manager_tasks_open{kind="round"}`:              2,
		`hivecrawl_manager_task_sends_total{result="ok"}`:         2,
		`hivecrawl_manager_host_leases{state="granted"}`:          2,
		`hivecrawl_manager_host_leases{state="held"}`:             0,
		`hivecrawl_manager_overlay_members`:                       float64(len(m.entry.Members())),
		`hivecrawl_manager_schedule_round_duration_seconds_count`: 1,
		`hivecrawl_manager_uploads_total{outcome="stored"}`:       0,
	})

	// The peer claims both leases and uploads one result: a new peer's
	// result is checked, so its credit is pending.
	pk := m.PublicKey()
	for i, tk := range tasks {
		if _, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[i], TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
			t.Fatal(err)
		}
	}
	up := &storage.Uploader{Host: ph, Storage: m.ID(), Manager: pk, Nickname: "alice"}
	d := deliver(t, tasks[0], envs[0], []*task.Page{
		{URL: tasks[0].Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte("text of " + tasks[0].Channel)},
		{URL: tasks[0].Seeds[0] + "more", Status: 200, FetchedAt: clk.now(), Digest: 2, Text: []byte("more text of " + tasks[0].Channel)},
	})
	if _, err := up.Upload(ctx, d); err != nil {
		t.Fatal(err)
	}
	stored := scrape(t, m)
	want(t, stored, map[string]float64{
		`hivecrawl_manager_tasks_completed_total{kind="round"}`: 1,
		`hivecrawl_manager_tasks_open{kind="round"}`:            1,
		`hivecrawl_manager_host_leases{state="granted"}`:        0,
		`hivecrawl_manager_host_leases{state="held"}`:           1,
		`hivecrawl_manager_uploads_total{outcome="stored"}`:     1,
		`hivecrawl_manager_pages_stored_total`:                  2,
		`hivecrawl_manager_results_checked_total`:               1,
		`hivecrawl_manager_results_pending`:                     1,
	})
	if v := stored[`hivecrawl_manager_stored_text_bytes_total`]; v <= 0 {
		t.Errorf("stored text bytes %v after a stored upload", v)
	}

	// A minute on, the next round samples the totals: the status shows
	// the pages and the result stored in that minute.
	clk.add(throughputEvery)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	code, body := api(t, m, "GET", "/api/status", "", "", nil)
	var st Status
	if err := json.Unmarshal(body, &st); code != http.StatusOK || err != nil {
		t.Fatalf("GET /api/status = %d %v", code, err)
	}
	// The first sample was the baseline, taken at the first round.
	wantRate := 2 / throughputEvery.Seconds()
	if len(st.Throughput) != 1 || st.Throughput[0].Pages != wantRate || st.Throughput[0].Tasks != wantRate/2 {
		t.Fatalf("throughput %+v, want one point of %.3f pages/s and %.3f tasks/s", st.Throughput, wantRate, wantRate/2)
	}
	code, page := api(t, m, "GET", "/", "", "", nil)
	for _, w := range []string{`aria-label="pages stored per second"`, `aria-label="tasks (results stored) per second"`, "<polyline"} {
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

// scrape gets the manager's /metrics over HTTP, checks the text with
// promtool, and returns every sample by its name and labels as the text
// writes them (`name{label="value"}`).
func scrape(t *testing.T, m *Manager) map[string]float64 {
	t.Helper()
	resp, err := http.Get(m.APIURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics = %d %s:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), buf.Bytes())
	}
	checkMetrics(t, buf.Bytes())
	return samples(t, buf.Bytes())
}

// checkMetrics pipes text to `promtool check metrics`, which fails on a
// malformed exposition and on names, units and help against Prometheus's
// conventions. Without promtool (Debian's prometheus package) the check
// is skipped, or fails when CI is set.
func checkMetrics(t *testing.T, text []byte) {
	t.Helper()
	if _, err := exec.LookPath("promtool"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool not installed (Debian package prometheus): %v", err)
		}
		t.Logf("promtool not installed (Debian package prometheus), its check skipped; set CI to make this a failure")
		return
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = bytes.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// samples parses the text exposition into samples keyed as the text
// writes them; a histogram gives its _count and _sum.
func samples(t *testing.T, text []byte) map[string]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parse metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, s := range f.Metric {
			key := name + labelText(s.Label)
			switch {
			case s.Counter != nil:
				out[key] = s.Counter.GetValue()
			case s.Gauge != nil:
				out[key] = s.Gauge.GetValue()
			case s.Histogram != nil:
				out[name+"_count"+labelText(s.Label)] = float64(s.Histogram.GetSampleCount())
				out[name+"_sum"+labelText(s.Label)] = s.Histogram.GetSampleSum()
			case s.Untyped != nil:
				out[key] = s.Untyped.GetValue()
			}
		}
	}
	return out
}

func labelText(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	var parts []string
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// want checks samples against wanted values; a key may be a sum of
// samples joined by "+". A sample missing from got fails.
func want(t *testing.T, got map[string]float64, wanted map[string]float64) {
	t.Helper()
	for key, v := range wanted {
		sum := 0.0
		for _, k := range strings.Split(key, "+") {
			g, ok := got[k]
			if !ok {
				t.Errorf("no sample %s", k)
			}
			sum += g
		}
		if sum != v {
			t.Errorf("%s = %v, want %v", key, sum, v)
		}
	}
}
