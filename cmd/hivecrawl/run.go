package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/paths"
)

func init() {
	register(command{name: "run", summary: "run the volunteer client (--headless: without a tray)", run: runClient})
}

func runClient(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	headless := fs.Bool("headless", false, "run without a tray icon (servers)")
	seeds := fs.String("seeds", "", "take tasks from `FILE`: one URL per line, each a task for its host and directory")
	seedEvery := fs.Duration("seed-interval", app.DefaultSeedInterval, "submit the seeds file's tasks again after this `interval`")
	seedDepth := fs.Int("seed-depth", app.DefaultSeedDepth, "link depth of seeds-file tasks")
	seedPages := fs.Int("seed-pages", app.DefaultSeedPages, "most pages per seeds-file task")
	delay := fs.Duration("delay", 0, "politeness wait between requests of seeds-file tasks (0: the crawler's default, 1s)")
	threads := fs.Int("threads", 0, "tasks crawled at once (default 3)")
	allowLoopback := fs.Bool("allow-loopback", false, "test only: allow crawling loopback addresses (local fixtures)")
	verbose := fs.Bool("v", false, "log at debug level")
	home := paths.Flag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "hivecrawl run: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if !*headless {
		fmt.Fprintln(os.Stderr, "hivecrawl run: the tray is not available yet; use 'hivecrawl run --headless'")
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	c, err := app.New(ctx, app.Options{
		Home:          *home,
		Seeds:         *seeds,
		SeedTasks:     app.SeedTasks{Delay: *delay, MaxDepth: *seedDepth, MaxPages: *seedPages, Interval: *seedEvery},
		AllowLoopback: *allowLoopback,
		Threads:       *threads,
		Grace:         5 * time.Second,
		Version:       version,
		Logger:        log,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", err)
		return 1
	}
	if err := c.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", err)
		return 1
	}
	return 0
}
