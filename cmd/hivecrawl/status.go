package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "status", summary: "show the running client's state, limits and credits (--json)", run: stdio(statusMain)})
	register(command{name: "pause", summary: "pause crawling until 'hivecrawl resume'", run: stdio(pauseMain)})
	register(command{name: "resume", summary: "resume crawling (ends a pause or snooze)", run: stdio(resumeMain)})
	register(command{name: "snooze", summary: "pause for a while: snooze [1h|30m|tomorrow]", run: stdio(snoozeMain)})
	register(command{name: "set", summary: "change settings: set KEY=VALUE... (set --help lists the keys)", run: stdio(setMain)})
}

// stdio adapts a command written against explicit streams (for tests).
func stdio(f func(ctx context.Context, args []string, stdout, stderr io.Writer) int) func(context.Context, []string) int {
	return func(ctx context.Context, args []string) int { return f(ctx, args, os.Stdout, os.Stderr) }
}

// controlFlags parses the flags every control command shares and returns
// the instance's directories.
func controlFlags(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (*flag.FlagSet, paths.Dirs, int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := paths.Flag(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, paths.Dirs{}, 0
		}
		return nil, paths.Dirs{}, 2
	}
	dirs, err := paths.Resolve(*home)
	if err != nil {
		fmt.Fprintf(stderr, "hivecrawl %s: %v\n", name, err)
		return nil, paths.Dirs{}, 1
	}
	return fs, dirs, -1
}

// fail prints err as one line and returns the exit code.
func fail(stderr io.Writer, name string, err error) int {
	if errors.Is(err, localapi.ErrNotRunning) {
		fmt.Fprintln(stderr, localapi.ErrNotRunning)
		return 1
	}
	var ae *localapi.APIError
	if errors.As(err, &ae) {
		fmt.Fprintf(stderr, "hivecrawl %s: %s\n", name, ae.Message)
		return 1
	}
	fmt.Fprintf(stderr, "hivecrawl %s: %v\n", name, err)
	return 1
}

func statusMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var asJSON *bool
	fs, dirs, code := controlFlags("status", args, stderr, func(fs *flag.FlagSet) {
		asJSON = fs.Bool("json", false, "print the status as JSON")
	})
	if fs == nil {
		return code
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return fail(stderr, "status", err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		return fail(stderr, "status", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return fail(stderr, "status", err)
		}
		return 0
	}
	writeStatus(stdout, st)
	return 0
}

func pauseMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return stateChange(ctx, "pause", args, stdout, stderr, (*localapi.Client).Pause)
}

func resumeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return stateChange(ctx, "resume", args, stdout, stderr, (*localapi.Client).Resume)
}

func stateChange(ctx context.Context, name string, args []string, stdout, stderr io.Writer,
	do func(*localapi.Client, context.Context) (localapi.Status, error)) int {
	fs, dirs, code := controlFlags(name, args, stderr, nil)
	if fs == nil {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hivecrawl %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return fail(stderr, name, err)
	}
	st, err := do(c, ctx)
	if err != nil {
		return fail(stderr, name, err)
	}
	fmt.Fprintln(stdout, stateLine(st))
	return 0
}

func snoozeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dirs, code := controlFlags("snooze", args, stderr, nil)
	if fs == nil {
		return code
	}
	d := "1h"
	switch fs.NArg() {
	case 0:
	case 1:
		d = fs.Arg(0)
	default:
		fmt.Fprintln(stderr, "hivecrawl snooze: give one duration: 1h, 30m or tomorrow")
		return 2
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return fail(stderr, "snooze", err)
	}
	until, err := c.Snooze(ctx, d)
	if err != nil {
		return fail(stderr, "snooze", err)
	}
	layout := "Mon 2 Jan 15:04"
	if until.Local().Format(time.DateOnly) == time.Now().Format(time.DateOnly) {
		layout = "15:04"
	}
	fmt.Fprintf(stdout, "Snoozed until %s\n", until.Local().Format(layout))
	return 0
}

func setMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dirs, code := controlFlags("set", args, stderr, func(fs *flag.FlagSet) {
		fs.Usage = func() {
			fmt.Fprintln(stderr, "usage: hivecrawl set [--home DIR] KEY=VALUE...\n\nkeys:")
			for _, k := range config.Keys() {
				fmt.Fprintf(stderr, "  %-34s %s\n", k[0], k[1])
			}
			fmt.Fprintln(stderr, "\nSizes and rates take units: 200KB/s, 1.5MiB/s, 512MB (0 = unlimited).")
		}
	})
	if fs == nil {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	changes, err := localapi.ParseChanges(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "hivecrawl set: %v\n", err)
		return 2
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err == nil {
		_, err = c.SetConfig(ctx, changes...)
	}
	if errors.Is(err, localapi.ErrNotRunning) {
		// Nobody to tell: change the file for the next start.
		return setOffline(dirs, changes, stdout, stderr)
	}
	if err != nil {
		return fail(stderr, "set", err)
	}
	fmt.Fprintf(stdout, "Set %s\n", describeChanges(changes))
	return 0
}

// setOffline applies changes to the configuration file of a client that is
// not running.
func setOffline(dirs paths.Dirs, changes []localapi.Change, stdout, stderr io.Writer) int {
	st := config.Open(dirs.ConfigFile())
	if err := st.Problem(); err != nil {
		fmt.Fprintf(stderr, "hivecrawl set: %v (fix the file first)\n", err)
		return 1
	}
	if err := dirs.Ensure(); err != nil {
		return fail(stderr, "set", err)
	}
	cc := make([]config.Change, len(changes))
	for i, ch := range changes {
		cc[i] = config.Change{Key: ch.Key, Value: ch.Value}
	}
	if err := st.Apply(cc...); err != nil {
		return fail(stderr, "set", err)
	}
	fmt.Fprintf(stdout, "Set %s in %s (hivecrawl is not running; it applies at the next start)\n", describeChanges(changes), dirs.ConfigFile())
	return 0
}

func describeChanges(changes []localapi.Change) string {
	parts := make([]string, len(changes))
	for i, ch := range changes {
		parts[i] = ch.Key + "=" + ch.Value
	}
	return strings.Join(parts, ", ")
}
