// Command hivecrawl is the volunteer web crawler: the client (tray or
// headless), the operator's manager, the demo swarm and the simulator, each a
// subcommand registered by its own file.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand. run gets the arguments after its name and
// returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) int
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(dispatch(ctx, os.Args[1:]))
}

func dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 {
		if c, ok := commands["default"]; ok {
			return c.run(ctx, nil)
		}
		usage(os.Stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(os.Stdout)
		return 0
	case "--version", "version":
		fmt.Println(versionLine())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "hivecrawl: unknown command %q (see 'hivecrawl help')\n", args[0])
		return 2
	}
	return c.run(ctx, args[1:])
}

// usage lists the commands on w: stdout when asked for, stderr after a
// mistake.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hivecrawl <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		if n != "default" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
