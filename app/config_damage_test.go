package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// A client whose settings file is damaged keeps the contributor's last
// good limits, says so in its status, and fails a change it cannot save;
// without a good copy it does not crawl at all.
func TestClientDamagedConfigKeepsLimits(t *testing.T) {
	srv := smallSites(t)
	run := func(t *testing.T, home string) (*localapi.Client, func()) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		c, err := New(ctx, Options{
			Home: home, Mode: ModeLocal, Seeds: writeSeeds(t, srv, 2), AllowLoopback: true,
			SeedTasks: SeedTasks{MaxDepth: 1}, Logger: quiet, Version: "test",
		})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- c.Serve(ctx) }()
		var api *localapi.Client
		eventually(t, "the local API", func() bool {
			api, err = localapi.Dial(filepath.Join(home, "config", "api.json"))
			return err == nil
		})
		return api, func() { cancel(); <-served }
	}
	ctx := context.Background()

	t.Run("last good copy", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, "config", "config.json")
		os.MkdirAll(filepath.Dir(path), 0o700)
		cfg := config.Default()
		cfg.BusyThreshold, cfg.CPU, cfg.Download, cfg.DailyQuota = 0, 0, 1_000_000, 5_000_000_000
		if err := config.Save(path, cfg); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"download": "1MB/s", "daily_qu`), 0o600); err != nil {
			t.Fatal(err)
		}
		api, stop := run(t, home)
		defer stop()
		st, err := api.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(st.ConfigProblem, path) || !strings.Contains(st.ConfigProblem, "last good settings") {
			t.Errorf("config problem %q, want the file named and the last good settings in use", st.ConfigProblem)
		}
		if st.Download.Cap != 1_000_000 || st.Transfer.DailyQuota != 5_000_000_000 {
			t.Errorf("download cap %d, daily quota %d: want the last good 1MB/s and 5GB", st.Download.Cap, st.Transfer.DailyQuota)
		}
		_, err = api.SetConfig(ctx, localapi.Change{Key: "download", Value: "2MB/s"})
		if err == nil || !strings.Contains(err.Error(), "not saved") {
			t.Errorf("set on a damaged file: %v, want it to fail saying it was not saved", err)
		}
		if st, _ := api.Status(ctx); st.Download.Cap != 2_000_000 {
			t.Errorf("download cap %d after set, want the change applied to the running client", st.Download.Cap)
		}
	})

	t.Run("no good copy", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, "config", "config.json")
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(`{"download": "1MB/s",,}`), 0o600); err != nil {
			t.Fatal(err)
		}
		api, stop := run(t, home)
		defer stop()
		st, err := api.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != "paused" || len(st.Reasons) == 0 || !strings.Contains(st.Reasons[0], "settings file is damaged") {
			t.Errorf("state %s %q, want paused because the settings file is damaged", st.State, st.Reasons)
		}
		if _, err := api.Resume(ctx); err == nil {
			t.Error("resume on a damaged file reported success")
		}
		if st, _ := api.Status(ctx); st.State != "paused" || st.Pages.Total != 0 {
			t.Errorf("after resume: %s, %d pages; want still paused, nothing crawled", st.State, st.Pages.Total)
		}
	})
}
