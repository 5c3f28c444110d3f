package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "channels", summary: "solo mode's sites: list, add, crawl, pause, resume, remove, set", run: stdio(channelsMain)})
}

const channelsUsage = `usage: hivecrawl channels [--home DIR] [--json]       list the sites solo mode crawls
       hivecrawl channels add URL...                   add sites by a seed URL each
       hivecrawl channels crawl|pause|resume|remove HOST...
       hivecrawl channels set HOST KEY=VALUE...        depth=N, pages=N, other-hosts=on|off

A channel is one web host. 'crawl' crawls it now (once, even when paused);
'pause' starts no new crawl of it; 'remove' drops it (adding a seed on its
host brings it back). depth is the link hops followed from a seed (0: the
seeds alone), pages bounds one crawl (0: the crawler's default), and
other-hosts=on turns links to other hosts into channels of their own (off
by default). The client must be running in solo mode.`

func channelsMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var asJSON *bool
	fs, dirs, code := controlFlags("channels", reorder(args), stderr, func(fs *flag.FlagSet) {
		asJSON = fs.Bool("json", false, "print the channels as JSON")
		fs.Usage = func() { fmt.Fprintln(fs.Output(), channelsUsage) }
	})
	if fs == nil {
		return code
	}
	verb, rest := "list", fs.Args()
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	switch {
	case verb == "list" && len(rest) > 0:
		fmt.Fprintf(stderr, "hivecrawl channels: unexpected argument %q\n", rest[0])
		return 2
	case verb == "set" && len(rest) < 2, verb != "list" && verb != "set" && len(rest) == 0:
		fmt.Fprintln(stderr, channelsUsage)
		return 2
	case verb != "list" && verb != "add" && verb != "set" && !slices.Contains(localapi.ChannelActions, verb):
		fmt.Fprintf(stderr, "hivecrawl channels: unknown action %q\n%s\n", verb, channelsUsage)
		return 2
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
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(chs); err != nil {
				return fail(stderr, "channels", err)
			}
			return 0
		}
		writeChannels(stdout, chs, time.Now())
	case "add":
		res, err := c.AddSeeds(ctx, rest)
		if err != nil {
			return fail(stderr, "channels add", err)
		}
		fmt.Fprintf(stdout, "%d seed URLs added, %d new channels %s\n", res.Added, len(res.Created), strings.Join(res.Created, " "))
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
			var on bool
			switch v {
			case "on", "true", "yes":
				on = true
			case "off", "false", "no":
			default:
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
