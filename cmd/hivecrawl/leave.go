package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "leave", summary: "leave the network joined with 'hivecrawl join': back to solo mode",
		help: "Forgets the network profile that 'hivecrawl join' stored, so the client runs in\n" +
			"solo mode again: its own manager and storage, crawling the sites you add. Like\n" +
			"join, it takes effect when the client next starts: restart a running client.\n" +
			"Credit and results already earned in the network stay where they are.",
		flags: flagsOf(leaveFlags), run: stdio(leaveMain)})
}

func leaveFlags(o *joinOptions) *flag.FlagSet {
	fs := newFlagSet("leave")
	o.home = paths.Flag(fs)
	return fs
}

func leaveMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o joinOptions
	fs := leaveFlags(&o)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if unexpectedArgs(fs, stderr) {
		return 2
	}
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		fmt.Fprintln(stderr, "hivecrawl leave:", err)
		return 1
	}
	path := filepath.Join(dirs.Config, profile.FileName)
	// The label is only for the message: a damaged profile is removed too.
	label := "the network"
	if p, err := profile.Read(path); err == nil {
		label = "the network of " + p.Name
		if p.Name == "" {
			label = "the network of manager " + p.Manager
		}
	}
	err = os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(stdout, "Hivecrawl is in no network (none joined with 'hivecrawl join'): it already runs in solo mode.")
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "hivecrawl leave: %v (remove the file by hand, then restart Hivecrawl)\n", err)
		return 1
	}
	if running(ctx, dirs) {
		fmt.Fprintf(stdout, "Left %s (removed %s). Restart Hivecrawl to go back to solo mode; until then it keeps crawling for the network.\n", label, path)
		return 0
	}
	fmt.Fprintf(stdout, "Left %s (removed %s). Hivecrawl runs in solo mode from its next start.\n", label, path)
	return 0
}

// running reports whether the client of dirs answers on its local API.
func running(ctx context.Context, dirs paths.Dirs) bool {
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return false
	}
	_, err = c.Status(ctx)
	return err == nil
}
