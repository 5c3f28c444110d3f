package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

func init() {
	register(command{name: "man", summary: "print the manual page hivecrawl(1) in roff (packages install it)",
		hidden: true, run: runMan})
}

func runMan(_ context.Context, args []string) int {
	fs := newFlagSet("man")
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	if unexpectedArgs(fs, os.Stderr) {
		return 2
	}
	writeManPage(os.Stdout)
	return 0
}

const manDescription = `Hivecrawl is a volunteer web crawler. Contributors run a small,
low-priority program that crawls web hosts for a search-engine operator
with a little of their bandwidth and CPU, within limits they set. The
crawlers form a peer-to-peer overlay that hands each web host to a
volunteer close to it on the network and not overloaded. Without a network
joined, the client runs in solo mode: its own manager and storage in the
same process, crawling the sites its user adds. 'hivecrawl join PROFILE'
joins a network and 'hivecrawl leave' goes back to solo mode, each from
the client's next start.

Without a command, hivecrawl starts the client: with its tray icon when
there is a desktop session, otherwise as 'hivecrawl run --headless'. When a
client already runs, it opens that client's dashboard instead. The
dashboard is a local web page; 'hivecrawl open' signs a browser in to it.

The client starts at login when its user turns on "Start at login" in the
dashboard's settings. Without a desktop, a systemd user unit runs it
headless: 'systemctl --user enable --now hivecrawl'.

Each command takes -h or --help. Flags are written with one dash or two
(-home or --home), and a value follows as the next argument or after "="
(--home=DIR).`

// writeManPage writes hivecrawl(1) from the command table, the commands'
// flags and the directories' names, so the page follows the program.
func writeManPage(w io.Writer) {
	var b strings.Builder
	b.WriteString(".\\\" hivecrawl(1), written by 'hivecrawl man' from the program's commands and\n")
	b.WriteString(".\\\" flags: change those, not this page.\n")
	fmt.Fprintf(&b, ".TH HIVECRAWL 1 \"\" \"hivecrawl %s\" \"User Commands\"\n", roffText(version))
	b.WriteString(".SH NAME\nhivecrawl \\- volunteer web crawler\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	b.WriteString("\\fBhivecrawl\\fR\n")
	b.WriteString("\\fBhivecrawl\\fR \\fIcommand\\fR [\\fIflags\\fR] [\\fIarguments\\fR]\n")
	b.WriteString("\\fBhivecrawl\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n")
	roffBlocks(&b, manDescription)

	b.WriteString(".SH COMMANDS\n")
	for _, c := range listed() {
		fmt.Fprintf(&b, ".SS %s\n", c.name)
		fmt.Fprintf(&b, ".nf\n\\fB%s\\fR\n.fi\n", roffText(c.synopsis()))
		if c.help != "" {
			roffBlocks(&b, c.help)
		} else {
			roffBlocks(&b, sentence(c.summary))
		}
		if c.flags == nil {
			continue
		}
		for _, f := range sortedFlags(c.flags()) {
			value, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR", roffText(dashed(f.Name)))
			if takesValue(f) {
				if value == "" {
					value = "value"
				}
				fmt.Fprintf(&b, " \\fI%s\\fR", roffText(value))
			}
			if d := flagDefault(f); d != "" {
				usage += " (default " + d + ")"
			}
			fmt.Fprintf(&b, "\n%s\n", roffText(sentence(usage)))
		}
	}

	b.WriteString(".SH FILES\n")
	b.WriteString("The directories of the user running hivecrawl; with \\fB\\-\\-home\\fR \\fIDIR\\fR, \\fIDIR\\fR/config, \\fIDIR\\fR/data and \\fIDIR\\fR/state instead.\n")
	for _, f := range manFiles() {
		fmt.Fprintf(&b, ".TP\n.I %s\n%s\n", roffText(f[0]), roffText(f[1]))
	}

	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range [][2]string{
		{"XDG_CONFIG_HOME", "Where the configuration directory and the start-at-login entry are (default ~/.config)."},
		{"XDG_DATA_HOME", "Where the data directory is (default ~/.local/share)."},
		{"XDG_STATE_HOME", "Where the state directory, with the event log, is (default ~/.local/state)."},
		{"XDG_CONFIG_DIRS", "Where a system-wide start-at-login entry an administrator installed is looked for (default /etc/xdg)."},
		{"DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR", "Whether there is a desktop session: hivecrawl without a command shows a tray icon in one, and runs headless otherwise."},
	} {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(e[0]), roffText(e[1]))
	}

	b.WriteString(".SH EXIT STATUS\n")
	for _, e := range [][2]string{
		{"0", "Success, and after -h or --help."},
		{"1", "The command failed; it said why on standard error, in one line."},
		{"2", "A mistake on the command line: an unknown command or flag, a missing or extra argument."},
	} {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", e[0], roffText(e[1]))
	}

	b.WriteString(".SH SEE ALSO\n")
	b.WriteString(".BR systemctl (1),\n.BR systemd.exec (5),\n.BR xdg\\-open (1)\n.PP\n")
	b.WriteString("The README and docs/ of the source, \\%https://github.com/hivecrawl/hivecrawl\n")
	io.WriteString(w, b.String())
}

// manFiles lists the files a user's client keeps, on Linux.
func manFiles() [][2]string {
	d := paths.Dirs{Config: "~/.config/" + paths.App, Data: "~/.local/share/" + paths.App, State: "~/.local/state/" + paths.App}
	return [][2]string{
		{d.Config + "/", "The configuration directory ($XDG_CONFIG_HOME/" + paths.App + ")."},
		{d.ConfigFile(), "The settings: every limit, the schedule, notifications, start at login ('hivecrawl set', the dashboard's Settings)."},
		{d.APIFile(), "The running client's local API address and token, readable by its user only."},
		{filepath.Join(d.Config, profile.FileName), "The network profile 'hivecrawl join' stored; without it the client runs in solo mode."},
		{d.Data + "/", "The data directory ($XDG_DATA_HOME/" + paths.App + ")."},
		{d.QueueFile(), "The task queue, which survives a crash."},
		{d.LedgerFile(), "The credits ledger."},
		{d.UsageFile(), "The transfer counters behind the quotas."},
		{d.PeerKeyFile(), "The peer's private key: its identity in the overlay."},
		{d.WebSessionsFile(), "The dashboard's sign-ins, hashed."},
		{app.ManagerDir(d) + "/", "Solo mode's (or the operator's) manager: the channel database and, in warc/, the extracted text."},
		{d.State + "/", "The state directory ($XDG_STATE_HOME/" + paths.App + ")."},
		{d.LogFile(), "The event log: a line for each thing the client did or that happened to it, rotated with compressed older logs beside it."},
		{"~/.config/autostart/hivecrawl.desktop", "The start-at-login entry the dashboard's \"Start at login\" writes."},
		{"/usr/lib/systemd/user/hivecrawl.service", "The systemd user unit that runs the client headless, when its user enables it."},
	}
}

// listItem is a line of an indented list in help text: "  TERM  what",
// the term a few words with single spaces between them; a line indented
// further continues the item above it.
var listItem = regexp.MustCompile(`^  (\S(?:\S| \S)*)\s{2,}(\S.*)$`)

// roffBlocks writes help text as roff: blank lines part paragraphs, and
// indented lines are list items (or kept as they are).
func roffBlocks(b *strings.Builder, text string) {
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		var (
			para []string
			item []string // term, then its description's lines
		)
		flush := func() {
			if len(para) > 0 {
				fmt.Fprintf(b, ".PP\n%s\n", roffText(strings.Join(para, " ")))
				para = nil
			}
			if len(item) > 0 {
				fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roffText(item[0]), roffText(strings.Join(item[1:], " ")))
				item = nil
			}
		}
		for _, l := range strings.Split(block, "\n") {
			switch m := listItem.FindStringSubmatch(l); {
			case !strings.HasPrefix(l, " "):
				if len(item) > 0 {
					flush()
				}
				para = append(para, strings.TrimSpace(l))
			case m != nil:
				flush()
				item = []string{m[1], m[2]}
			case len(item) > 0 && strings.HasPrefix(l, "   "):
				item = append(item, strings.TrimSpace(l))
			default:
				flush()
				fmt.Fprintf(b, ".PP\n.RS\n.nf\n%s\n.fi\n.RE\n", roffText(strings.TrimSpace(l)))
			}
		}
		flush()
	}
}

// roffText escapes s for roff text: backslashes, hyphens as minus signs
// (so options print as typed), a leading dot or quote, and non-ASCII
// characters as named code points, so the page is plain ASCII.
func roffText(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case (r == '.' || r == '\'') && i == 0:
			b.WriteString(`\&` + string(r))
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
