package app

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/internal/prom/promtest"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestClientMetricsOptIn runs a client in local mode over three sites:
// /metrics is not found until the metrics setting is on; on, it serves
// text promtool accepts, with the figures of the crawls done and the
// pause the volunteer asked for, all listed in docs/operator/metrics.md; it stays
// behind the local API's Host check; off again, it is not found.
func TestClientMetricsOptIn(t *testing.T) {
	srv := smallSites(t)
	home := t.TempDir()
	quietConfig(t, home, `, "api_port": 0`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := New(ctx, Options{Home: home, Mode: ModeLocal, Seeds: writeSeeds(t, srv, 3), AllowLoopback: true,
		SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1}, Logger: quiet, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	var api *localapi.Client
	eventually(t, "the local API", func() bool {
		api, err = localapi.Dial(filepath.Join(home, "config", "api.json"))
		return err == nil
	})
	eventually(t, "three results in the ledger", func() bool {
		st, err := api.Status(ctx)
		return err == nil && st.Pages.Total == 9
	})
	info, err := loopback.ReadInfo(filepath.Join(home, "config", "api.json"))
	if err != nil {
		t.Fatal(err)
	}
	url := info.URL + "/metrics"
	get := func(host string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Authorization", "Bearer "+info.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	if code := get(""); code != http.StatusNotFound {
		t.Fatalf("GET /metrics with metrics off = %d, want 404", code)
	}
	// Without the token, metrics on or off, nothing but 401.
	noToken := func() int {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := noToken(); code != http.StatusUnauthorized {
		t.Fatalf("GET /metrics without the token, metrics off = %d, want 401", code)
	}
	if _, err := api.SetConfig(ctx, localapi.Change{Key: "metrics", Value: "on"}); err != nil {
		t.Fatal(err)
	}
	promtest.Want(t, promtest.ScrapeToken(t, url, info.Token), map[string]float64{
		`hivecrawl_client_tasks_done_total`:                     3,
		`hivecrawl_client_pages_total`:                          9,
		`hivecrawl_client_credits{state="pending"}`:             9,
		`hivecrawl_client_task_threads`:                         3,
		`hivecrawl_client_paused{reason="paused"}`:              0,
		`hivecrawl_client_tasks_failed_total{reason="refused"}`: 0,
	})
	if code := noToken(); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token, metrics on = %d, want 401", code)
	}
	if _, err := api.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	paused := promtest.ScrapeToken(t, url, info.Token)
	// docs/operator/metrics.md lists them all, and the Grafana dashboard uses
	// only these.
	promtest.Documented(t, promtest.Names(paused, "hivecrawl_client_"), "hivecrawl_client_", "../docs/operator/grafana/hivecrawl.json", "../docs/operator/metrics.md")
	promtest.Want(t, paused, map[string]float64{
		`hivecrawl_client_paused{reason="paused"}`: 1,
		`hivecrawl_client_paused{reason="busy"}`:   0,
	})
	if paused[`hivecrawl_client_download_bytes_total`] <= 0 {
		t.Errorf("download bytes %v after three crawls", paused[`hivecrawl_client_download_bytes_total`])
	}

	if code := get("evil.example"); code != http.StatusForbidden {
		t.Errorf("GET /metrics with a foreign Host = %d, want 403", code)
	}
	if _, err := api.SetConfig(ctx, localapi.Change{Key: "metrics", Value: "off"}); err != nil {
		t.Fatal(err)
	}
	if code := get(""); code != http.StatusNotFound {
		t.Errorf("GET /metrics with metrics off again = %d, want 404", code)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
