package tray_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/notify"
	"github.com/hivecrawl/hivecrawl/app/tray"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

// childEnv, when set, makes the test binary run a tray for the local API
// whose Info it holds (JSON) instead of the tests: the D-Bus test runs the
// tray in its own process, as a desktop would, beside the client.
const childEnv = "HIVECRAWL_TEST_TRAY_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(trayChild(v))
	}
	os.Exit(m.Run())
}

func trayChild(infoJSON string) int {
	var info loopback.Info
	if err := json.Unmarshal([]byte(infoJSON), &info); err != nil {
		fmt.Fprintln(os.Stderr, "tray child:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// As the desktop runs it: signed-in links, and a notification with the
	// link when no browser starts (this process has no display).
	ctl := tray.NewController(tray.Options{
		API: localapi.NewClient(info), Interval: 100 * time.Millisecond, Quit: cancel,
		SignIn: func(ctx context.Context, page string) (string, error) { return web.LoginURL(ctx, info, page) },
		Tell: func(ctx context.Context, title, body string) error {
			return notify.Desktop{}.Send(ctx, notify.Message{Title: title, Body: body})
		},
	})
	tray.Run(ctx, ctl, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Fprintln(os.Stderr, "tray child: not quit within a minute")
		return 1
	}
	return 0
}
