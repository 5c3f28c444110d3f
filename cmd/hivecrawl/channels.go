package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "channels", summary: "solo mode's sites: list, add, crawl, pause, resume, remove, set",
		args: "[flags] [list | add URL... | crawl|pause|resume|remove HOST... | set HOST KEY=VALUE...]",
		help: channelsHelp, words: append([]string{"list", "add", "set"}, localapi.ChannelActions...),
		flags: flagsOf(channelsFlags), run: stdio(channelsMain)})
}

const channelsHelp = `Lists and changes the sites solo mode crawls. A channel is one web host;
the list gives each one's state and, when it fails or is paused, why.

  list                   the channels (the default)
  add URL...             add sites by a seed URL each (all or none: an
                         http or https URL of a public web site)
  crawl HOST...          crawl now, once, even when paused
  pause HOST...          start no new crawl of it
  resume HOST...         undo pause
  remove HOST...         drop it (adding a seed on its host brings it back)
  set HOST KEY=VALUE...  depth=N (link hops from a seed; 0: the seeds
                         alone), pages=N (a crawl's bound; 0: the crawler's
                         default), other-hosts=on|off (links to other hosts
                         become channels of their own; off by default)

The client must be running in solo mode.`

func channelsFlags(o *controlOptions) *flag.FlagSet {
	fs := controlFlagSet("channels", o)
	fs.BoolVar(&o.asJSON, "json", false, "print the channels as JSON")
	return fs
}

func channelsMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o controlOptions
	fs := channelsFlags(&o)
	dirs, code, done := parseControl(fs, &o, reorder(args), stdout, stderr)
	if done {
		return code
	}
	usage := func() int {
		fmt.Fprintln(stderr, "usage: "+commands["channels"].synopsis()+" (see 'hivecrawl channels -h')")
		return 2
	}
	verb, rest := "list", fs.Args()
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	switch {
	case verb == "list" && len(rest) > 0:
		fmt.Fprintf(stderr, "hivecrawl channels: unexpected argument %q\n", rest[0])
		return 2
	case verb != "list" && verb != "add" && verb != "set" && !slices.Contains(localapi.ChannelActions, verb):
		fmt.Fprintf(stderr, "hivecrawl channels: unknown action %q\n", verb)
		return usage()
	case verb == "set" && len(rest) < 2, verb != "list" && verb != "set" && len(rest) == 0:
		return usage()
	}
	var set localapi.ChannelSettings
	if verb == "set" {
		var err error
		if set, err = parseChannelSettings(rest[1:]); err != nil {
			fmt.Fprintf(stderr, "hivecrawl channels set: %v\n", err)
			return 2
		}
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return fail(stderr, "channels", err)
	}
	switch verb {
	case "list":
		chs, err := c.SoloChannels(ctx)
		if err != nil {
			return fail(stderr, "channels", err)
		}
		if o.asJSON {
			return printJSON(stdout, stderr, "channels", chs)
		}
		writeChannels(stdout, chs, time.Now())
	case "add":
		res, err := c.AddSeeds(ctx, rest)
		if err != nil {
			return fail(stderr, "channels add", err)
		}
		printAdded(stdout, res)
	case "set":
		ch, err := c.SetChannel(ctx, rest[0], set)
		if err != nil {
			return fail(stderr, "channels set", err)
		}
		fmt.Fprintf(stdout, "%s: depth %d, pages %s, other hosts %s\n", ch.ID, ch.MaxDepth, pagesLimit(ch.MaxPages), onOff(ch.OtherHosts))
	default:
		for _, id := range rest {
			ch, err := c.ChannelAction(ctx, id, verb)
			if err != nil {
				return fail(stderr, "channels "+verb, err)
			}
			if verb == localapi.ChannelRemove {
				fmt.Fprintf(stdout, "%s: removed\n", id)
				continue
			}
			fmt.Fprintf(stdout, "%s: %s\n", ch.ID, channelStateText(ch))
		}
	}
	return 0
}

// parseChannelSettings reads depth=N, pages=N and other-hosts=on|off.
func parseChannelSettings(args []string) (localapi.ChannelSettings, error) {
	var set localapi.ChannelSettings
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return set, fmt.Errorf("%q is not KEY=VALUE", a)
		}
		switch k {
		case "depth", "pages":
			n, err := strconv.Atoi(v)
			if err != nil {
				return set, fmt.Errorf("%s=%q: not a whole number", k, v)
			}
			if k == "depth" {
				set.MaxDepth = &n
			} else {
				set.MaxPages = &n
			}
		case "other-hosts":
			on, err := config.ParseSwitch(v)
			if err != nil {
				return set, fmt.Errorf("other-hosts=%q: on or off", v)
			}
			set.OtherHosts = &on
		default:
			return set, fmt.Errorf("unknown key %q: depth, pages or other-hosts", k)
		}
	}
	return set, nil
}

// writeChannels prints one line per channel: host, state, pages, last and
// next crawl, and why it is failing or paused.
func writeChannels(w io.Writer, chs []localapi.SoloChannel, now time.Time) {
	if len(chs) == 0 {
		fmt.Fprintln(w, "No channels yet: add one with 'hivecrawl channels add URL'.")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTATE\tPAGES\tLAST CRAWL\tNEXT CRAWL\tWHY")
	for _, ch := range chs {
		last, next := "never", "-"
		if ch.Last != nil {
			last = fmt.Sprintf("%s ago, %d pages", span(ch.Last.At, now), ch.Last.Pages)
		}
		if !ch.NextCrawl.IsZero() && ch.State != localapi.StatePaused {
			next = "in " + span(now, ch.NextCrawl)
			if !ch.NextCrawl.After(now) {
				next = "due"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", ch.ID, ch.State, ch.Pages, last, next, ch.Reason)
	}
	tw.Flush()
}

// channelStateText is a channel's state with its reason.
func channelStateText(ch localapi.SoloChannel) string {
	if ch.Reason != "" {
		return ch.State + ": " + ch.Reason
	}
	return ch.State
}

// span is the time from a to b, rounded for a person.
func span(a, b time.Time) string {
	d := b.Sub(a)
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return d.Round(time.Minute).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

func pagesLimit(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
