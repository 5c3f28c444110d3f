package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/autostart"
	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/notify"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/app/tray"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

func init() {
	register(command{name: "default", summary: "the client with a tray icon, or headless without a desktop", hidden: true, run: runDefault})
	register(command{name: "open", summary: "open the dashboard in your browser, signed in (--print: only print the link)",
		args: "[flags] [" + strings.Join(openPages, "|") + "]", words: openPages, flags: flagsOf(openFlags), run: runOpen})
}

// openPages are the dashboard's pages 'hivecrawl open' opens.
var openPages = []string{"dashboard", "settings", "credits", "solo"}

// runDefault is `hivecrawl` without arguments: with a desktop session the
// client with its tray, notifications and start-at-login; without one, as
// `hivecrawl run --headless`.
func runDefault(ctx context.Context, args []string) int {
	fs := newFlagSet("default")
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	if unexpectedArgs(fs, os.Stderr) {
		return 2
	}
	if !tray.HasDesktop() {
		fmt.Fprintln(os.Stderr, "hivecrawl: no desktop session, so running without a tray (as 'hivecrawl run --headless')")
		return runClient(ctx, []string{"--headless"})
	}
	return runDesktop(ctx, app.Options{
		Version: version, Grace: 5 * time.Second, LowPriority: true, SoftMemoryLimit: true, Power: governor.SystemPower(), Presence: governor.SystemPresence(),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
}

// runDesktop runs the client with its tray until Quit or a signal. When a
// client already runs, it opens that one's dashboard instead.
func runDesktop(ctx context.Context, opts app.Options) int {
	dirs, err := paths.Resolve(opts.Home)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl:", err)
		return 1
	}
	if info, err := loopback.ReadInfo(dirs.APIFile()); err == nil {
		if _, err := localapi.NewClient(info).Status(ctx); err == nil {
			return openPage(ctx, info, "", false)
		}
	}
	opts.Desktop = true // the tray and start at login run here
	c, err := app.New(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl:", err)
		return 1
	}
	// The tray's and notifications' lines go to the event log with the
	// client's: a desktop session keeps no terminal output.
	log := c.Logger()
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- c.Serve(cctx) }()
	info, err := waitForAPI(cctx, dirs.APIFile(), served)
	if err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "hivecrawl:", err)
		return 1
	}
	api := localapi.NewClient(info)
	defer followAutostart(c.Settings(), log)()

	var wg sync.WaitGroup
	n, err := notify.New(notify.Options{
		API: api, Sender: notify.Desktop{}, StateFile: filepath.Join(dirs.Data, "notify.json"),
		Logger: log.With("part", "notify"),
	})
	if err != nil {
		log.Warn("Notifications start afresh", "err", err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); n.Serve(cctx) }()

	ctl := tray.NewController(tray.Options{
		API:    api,
		SignIn: func(ctx context.Context, page string) (string, error) { return web.LoginURL(ctx, info, page) },
		Tell: func(ctx context.Context, title, body string) error {
			return notify.Desktop{}.Send(ctx, notify.Message{Title: title, Body: body})
		},
		Quit: stop,
	})
	tray.Run(cctx, ctl, log.With("part", "tray"))
	stop()
	wg.Wait()
	if err := <-served; err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl:", err)
		return 1
	}
	return 0
}

// waitForAPI waits until the client started in this process has written
// its api.json, or has failed.
func waitForAPI(ctx context.Context, path string, served <-chan error) (loopback.Info, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if info, err := loopback.ReadInfo(path); err == nil && info.PID == os.Getpid() {
			return info, nil
		}
		select {
		case err := <-served:
			if err == nil {
				err = errors.New("the client stopped before it started")
			}
			return loopback.Info{}, err
		case <-ctx.Done():
			return loopback.Info{}, ctx.Err()
		case <-t.C:
		}
	}
}

// followAutostart keeps the start-at-login entry and the setting in step:
// at start the entry decides (an administrator may have installed one for
// everyone), then
// changes of the setting write the entry. It returns the stop function.
func followAutostart(s *config.Store, log *slog.Logger) func() {
	exe, err := os.Executable()
	if err != nil {
		log.Warn("Start at login is not available", "err", err)
		return func() {}
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	entry := autostart.Entry{Exe: exe}
	on, err := entry.Enabled()
	if err != nil {
		log.Warn("Cannot read the start-at-login entry", "err", err)
	} else if on != s.Get().StartAtLogin {
		if err := s.Update(func(c *config.Config) error { c.StartAtLogin = on; return nil }); err != nil {
			log.Warn("Cannot record the start-at-login setting", "err", err)
		}
	}
	last := s.Get().StartAtLogin
	var mu sync.Mutex // guards last
	return s.Watch(func(c config.Config) {
		mu.Lock()
		defer mu.Unlock()
		if c.StartAtLogin == last {
			return
		}
		if err := entry.Set(c.StartAtLogin); err != nil {
			log.Warn("Cannot change start at login", "err", err)
			return
		}
		last = c.StartAtLogin
		log.Info("Start at login changed", "on", last, "entry", entry.Path())
	})
}

// openOptions are open's flags.
type openOptions struct {
	printOnly bool
	home      *string
}

func openFlags(o *openOptions) *flag.FlagSet {
	fs := newFlagSet("open")
	fs.BoolVar(&o.printOnly, "print", false, "print the one-time sign-in link instead of opening a browser")
	o.home = paths.Flag(fs)
	return fs
}

// runOpen is `hivecrawl open [--print] [PAGE]`.
func runOpen(ctx context.Context, args []string) int {
	var o openOptions
	fs := openFlags(&o)
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	page := fs.Arg(0)
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl open:", err)
		return 1
	}
	info, err := loopback.ReadInfo(dirs.APIFile())
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl open:", err)
		return 1
	}
	return openPage(ctx, info, page, o.printOnly)
}

// openPage opens (or prints) a one-time sign-in link to page.
func openPage(ctx context.Context, info loopback.Info, page string, printOnly bool) int {
	u, err := web.LoginURL(ctx, info, page)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl open:", err)
		return 1
	}
	if printOnly {
		fmt.Println(u)
		return 0
	}
	err = tray.OpenBrowser(u)
	switch {
	case err == nil:
		fmt.Printf("The dashboard opens in your browser (it is at %s).\n", info.URL)
		return 0
	case errors.Is(err, tray.ErrNoBrowser):
		fmt.Println(tray.NoBrowserHint(err, u))
		if api, err := url.Parse(info.URL); err == nil {
			fmt.Printf("From another machine, forward the port first: ssh -L %s:%s HOST, then open the link there.\n", api.Port(), api.Host)
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "hivecrawl open:", tray.NoBrowserHint(err, u))
	return 1
}
