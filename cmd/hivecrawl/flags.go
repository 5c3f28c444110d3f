package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// newFlagSet returns the flag set of the command name, whose usage is
// written from the command table: its synopsis, its help and its flags.
// A command may set another Usage.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { writeUsage(fs.Output(), commands[name], fs) }
	return fs
}

// parseFlags parses a command's arguments, the same way for every
// command. -h or --help prints the command's usage on stdout: done, exit
// status 0. A mistake prints one line on stderr: done, exit status 2.
// Otherwise done is false and the command goes on; usage it prints later,
// after a bad argument, goes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	// The flag package prints the usage on -h and the error and the usage
	// on a mistake, to one output: catch it and send it where it belongs.
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(out.Bytes())
		return 0, true
	default:
		name := fs.Name()
		fmt.Fprintf(stderr, "hivecrawl %s: %v (see 'hivecrawl %s -h')\n", name, err, name)
		return 2, true
	}
}

// unexpectedArgs says, on stderr, that a command which takes no
// arguments was given some, and reports whether it was.
func unexpectedArgs(fs *flag.FlagSet, stderr io.Writer) bool {
	if fs.NArg() == 0 {
		return false
	}
	name := "hivecrawl " + fs.Name()
	if fs.Name() == "default" {
		name = "hivecrawl"
	}
	fmt.Fprintf(stderr, "%s: unexpected argument %q\n", name, fs.Arg(0))
	return true
}

// flagsOf adapts a command's flag constructor, which binds its flags to
// an options struct, to the command table's flags field.
func flagsOf[T any](declare func(*T) *flag.FlagSet) func() *flag.FlagSet {
	return func() *flag.FlagSet { return declare(new(T)) }
}

// synopsis is the command's usage line without "usage: ".
func (c command) synopsis() string {
	s := "hivecrawl " + c.name
	if c.args != "" {
		s += " " + c.args
	} else if c.flags != nil && hasFlags(c.flags()) {
		s += " [flags]"
	}
	return s
}

// writeUsage writes what -h prints: the usage line, the help (or the
// summary) and the flags.
func writeUsage(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n", c.synopsis())
	help := c.help
	if help == "" {
		help = sentence(c.summary)
	}
	fmt.Fprintln(w, strings.TrimRight(help, "\n"))
	if !hasFlags(fs) {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	for _, f := range sortedFlags(fs) {
		value, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  %s", dashed(f.Name))
		if value != "" {
			fmt.Fprintf(w, " %s", value)
		}
		fmt.Fprintf(w, "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := flagDefault(f); d != "" {
			fmt.Fprintf(w, " (default %s)", d)
		}
		fmt.Fprintln(w)
	}
}

func hasFlags(fs *flag.FlagSet) bool { return len(sortedFlags(fs)) > 0 }

// sortedFlags lists fs's flags by name, but for the hidden ones: what
// help, the man page and shell completion show.
func sortedFlags(fs *flag.FlagSet) []*flag.Flag {
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !hiddenFlags[fs.Name()+" "+f.Name] {
			out = append(out, f)
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// hiddenFlags are the flags, "COMMAND NAME", that tests, the demo and
// benchmarks pass but a user has no use for: accepted, never shown.
var hiddenFlags = map[string]bool{}

// hide hides flags of fs (see hiddenFlags). A name fs does not have is
// a mistake in the program.
func hide(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		if fs.Lookup(n) == nil {
			panic("hide: " + fs.Name() + " has no flag " + n)
		}
		hiddenFlags[fs.Name()+" "+n] = true
	}
}

// dashed is how help writes a flag: -v for a one-letter name, --name
// for the others (the flag package takes either).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// takesValue reports whether f needs a value (every flag but a boolean).
func takesValue(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// flagDefault is f's default as help shows it, "" when it is the zero
// value, which the flag's text explains if it matters.
func flagDefault(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, ok := g.Get().(string); ok {
			return strconv.Quote(f.DefValue)
		}
	}
	return f.DefValue
}

// sentence makes a one-line summary a sentence: a capital and a stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
