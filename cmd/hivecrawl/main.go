// Command hivecrawl is the volunteer web crawler: the client (tray or
// headless), the operator's manager, the demo swarm and the simulator, each a
// subcommand registered by its own file.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand. run gets the arguments after its name and
// returns the process exit code. Help (-h), shell completion and the man
// page are written from the other fields, so they follow the commands.
type command struct {
	name    string
	summary string // one line, in the list of commands
	// args is the usage line after "hivecrawl NAME", such as "[flags] URL";
	// "" means "[flags]" for a command with flags.
	args string
	// help says more than the summary, in -h and the man page: paragraphs,
	// and lines indented two spaces ("  TERM  what it is") for lists.
	help string
	// flags returns a new flag set with the command's flags (nil: none).
	flags func() *flag.FlagSet
	// words are what the first argument may be, for shell completion.
	words  []string
	hidden bool // left out of the list of commands and the man page
	run    func(ctx context.Context, args []string) int
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
	for _, c := range listed() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n'hivecrawl <command> -h' tells more; without a command, hivecrawl starts the client.")
}

// listed returns the commands that are not hidden, by name.
func listed() []command {
	var out []command
	for _, c := range commands {
		if !c.hidden {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
