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
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "status", summary: "show the running client's state, limits and credits (--json)",
		flags: flagsOf(statusFlags), run: stdio(statusMain)})
	register(command{name: "pause", summary: "pause crawling until 'hivecrawl resume'",
		flags: controlFlagsOf("pause"), run: stdio(pauseMain)})
	register(command{name: "finish", summary: "let the running crawls end, start no new one, then pause",
		flags: controlFlagsOf("finish"), run: stdio(finishMain)})
	register(command{name: "resume", summary: "resume crawling (ends a pause, snooze or finish)",
		flags: controlFlagsOf("resume"), run: stdio(resumeMain)})
	register(command{name: "snooze", summary: "pause for a while: snooze [1h|30m|tomorrow]",
		args: "[flags] [1h|30m|tomorrow]", words: []string{"1h", "30m", "tomorrow"}, flags: controlFlagsOf("snooze"), run: stdio(snoozeMain)})
	register(command{name: "set", summary: "change settings: set KEY=VALUE... (set --help lists the keys)",
		args: "[flags] KEY=VALUE...", help: setHelp(), flags: controlFlagsOf("set"), run: stdio(setMain)})
}

// setHelp lists the settings' keys.
func setHelp() string {
	var b strings.Builder
	b.WriteString("Changes settings: at once when the client runs, else in its configuration\nfile for its next start. The keys:\n\n")
	for _, k := range config.Keys() {
		fmt.Fprintf(&b, "  %-34s %s\n", k[0], k[1])
	}
	b.WriteString("\nSizes and rates take units: 200KB/s, 1.5MiB/s, 512MB (0 = unlimited).")
	return b.String()
}

// stdio adapts a command written against explicit streams (for tests).
func stdio(f func(ctx context.Context, args []string, stdout, stderr io.Writer) int) func(context.Context, []string) int {
	return func(ctx context.Context, args []string) int { return f(ctx, args, os.Stdout, os.Stderr) }
}

// controlOptions are the control commands' flags: --home, and status's
// --json.
type controlOptions struct {
	home   *string
	asJSON bool
}

// controlFlagSet declares the flag every control command has, --home.
func controlFlagSet(name string, o *controlOptions) *flag.FlagSet {
	fs := newFlagSet(name)
	o.home = paths.Flag(fs)
	return fs
}

// controlFlagsOf is the command table's flags of a control command that
// has only --home.
func controlFlagsOf(name string) func() *flag.FlagSet {
	return func() *flag.FlagSet { return controlFlagSet(name, new(controlOptions)) }
}

func statusFlags(o *controlOptions) *flag.FlagSet {
	fs := controlFlagSet("status", o)
	fs.BoolVar(&o.asJSON, "json", false, "print the status as JSON")
	return fs
}

// parseControl parses a control command's arguments into fs and returns
// the instance's directories; done and code as parseFlags.
func parseControl(fs *flag.FlagSet, o *controlOptions, args []string, stdout, stderr io.Writer) (dirs paths.Dirs, code int, done bool) {
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return paths.Dirs{}, code, true
	}
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		fmt.Fprintf(stderr, "hivecrawl %s: %v\n", fs.Name(), err)
		return paths.Dirs{}, 1, true
	}
	return dirs, 0, false
}

// printJSON writes v as indented JSON, what a control command's --json
// prints, and returns the exit code.
func printJSON(stdout, stderr io.Writer, name string, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(stderr, name, err)
	}
	return 0
}

// fail prints err as one line and returns the exit code.
func fail(stderr io.Writer, name string, err error) int {
	if errors.Is(err, loopback.ErrNotRunning) {
		self := selfCommand(os.Args)
		fmt.Fprintf(stderr, "%s: start it with '%s' (or '%s run --headless' without a desktop), then try again\n",
			loopback.ErrNotRunning, self, self)
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
	var o controlOptions
	dirs, code, done := parseControl(statusFlags(&o), &o, args, stdout, stderr)
	if done {
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
	if o.asJSON {
		return printJSON(stdout, stderr, "status", st)
	}
	writeStatus(stdout, st)
	return 0
}

func pauseMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return stateChange(ctx, "pause", args, stdout, stderr, (*localapi.Client).Pause)
}

func finishMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return stateChange(ctx, "finish", args, stdout, stderr, (*localapi.Client).Finish)
}

func resumeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return stateChange(ctx, "resume", args, stdout, stderr, (*localapi.Client).Resume)
}

func stateChange(ctx context.Context, name string, args []string, stdout, stderr io.Writer,
	do func(*localapi.Client, context.Context) (localapi.Status, error)) int {
	var o controlOptions
	fs := controlFlagSet(name, &o)
	dirs, code, done := parseControl(fs, &o, args, stdout, stderr)
	if done {
		return code
	}
	if unexpectedArgs(fs, stderr) {
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
	var o controlOptions
	fs := controlFlagSet("snooze", &o)
	dirs, code, done := parseControl(fs, &o, args, stdout, stderr)
	if done {
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
	var o controlOptions
	fs := controlFlagSet("set", &o)
	dirs, code, done := parseControl(fs, &o, args, stdout, stderr)
	if done {
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
	if errors.Is(err, loopback.ErrNotRunning) {
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

// selfCommand is how to start this same instance again, as the user
// invoked this command: the program as typed ("bin/hivecrawl" when run
// from the source tree) and its --home.
func selfCommand(args []string) string {
	self := "hivecrawl"
	if len(args) > 0 && strings.ContainsRune(args[0], os.PathSeparator) {
		self = args[0]
	}
	for i, a := range args {
		switch {
		case a == "--home" || a == "-home":
			if i+1 < len(args) {
				return self + " --home " + args[i+1]
			}
		case strings.HasPrefix(a, "--home=") || strings.HasPrefix(a, "-home="):
			return self + " --home " + a[strings.IndexByte(a, '=')+1:]
		}
	}
	return self
}
