package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/testkit/testport"
)

// TestDashboardAddressStable starts a client three times with the same
// home: the dashboard is at the same address each time, so a bookmark
// keeps working. With its port taken by another program, the client
// serves on another port for that run, says so in its log, and writes the
// address it took for the CLI and the tray.
func TestDashboardAddressStable(t *testing.T) {
	srv := smallSites(t)
	home := t.TempDir()
	// The default port (7339) may be held by a Hivecrawl running on this
	// machine or by another test: a port found free here stands for it.
	port := testport.Fixed(t)
	quietConfig(t, home, fmt.Sprintf(`, "api_port": %d`, port))
	want := fmt.Sprintf("http://127.0.0.1:%d", port)

	start := func(log *slog.Logger) string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := New(ctx, Options{Home: home, Mode: ModeLocal, Seeds: writeSeeds(t, srv, 1), AllowLoopback: true,
			SeedTasks: SeedTasks{MaxDepth: 0}, Logger: log, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- c.Serve(ctx) }()
		var info loopback.Info
		eventually(t, "the local API", func() bool {
			info, err = loopback.ReadInfo(filepath.Join(home, "config", "api.json"))
			return err == nil
		})
		cancel()
		if err := <-served; err != nil {
			t.Fatal(err)
		}
		return info.URL
	}
	for run := range 3 {
		if got := start(quiet); got != want {
			t.Fatalf("start %d: dashboard at %s, want %s", run+1, got, want)
		}
	}

	busy, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Skipf("port %d taken between the runs: %v", port, err)
	}
	defer busy.Close()
	var logged lockedBuffer
	if got := start(slog.New(slog.NewTextHandler(&logged, nil))); got == want || !strings.HasPrefix(got, "http://127.0.0.1:") {
		t.Fatalf("port taken: dashboard at %s, want another port on 127.0.0.1", got)
	}
	if !strings.Contains(logged.String(), "port is taken") || !strings.Contains(logged.String(), "api_port") {
		t.Errorf("no line saying the port was taken and how to change it:\n%s", logged.String())
	}
}
