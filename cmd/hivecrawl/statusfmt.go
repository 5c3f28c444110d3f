package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// stateLine is the one-line summary: "Hivecrawl is paused by you",
// "Hivecrawl is throttled: download at its cap of 200 KB/s". The reasons
// stand alone elsewhere (the tray, the dashboard) and so begin with the
// state's word ("Paused: ..."), which the line has already said.
func stateLine(st localapi.Status) string {
	line := "Hivecrawl is " + st.State
	for i, r := range st.Reasons {
		rest, goesOn := afterState(st.State, r)
		switch {
		case i == 0 && goesOn:
			line += " " + rest
		case i == 0:
			line += ": " + rest
		case goesOn:
			line += "; " + st.State + " " + rest
		default:
			line += "; " + rest
		}
	}
	return line
}

// afterState returns reason without a leading state word: "other
// programs are using 63 % CPU" from "Paused: other programs are using 63
// % CPU", and "by you", goesOn, from "Paused by you". Other reasons
// come back with a small first letter ("snoozed until 14:05").
func afterState(state, reason string) (rest string, goesOn bool) {
	if n := len(state); n > 0 && len(reason) > n && strings.EqualFold(reason[:n], state) {
		switch after := reason[n:]; {
		case strings.HasPrefix(after, ": "):
			return lowerFirst(after[2:]), false
		case after[0] == ' ':
			return after[1:], true
		}
	}
	return lowerFirst(reason), false
}

// lowerFirst puts s's first letter in lower case, unless its first word
// is a name ("Hivecrawl") or an abbreviation ("CPU").
func lowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	if word == "" || word == "Hivecrawl" || word != strings.ToUpper(word[:1])+strings.ToLower(word[1:]) {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// writeStatus prints the status for people.
func writeStatus(w io.Writer, st localapi.Status) {
	fmt.Fprintln(w, stateLine(st))
	if st.ConfigProblem != "" {
		fmt.Fprintf(w, "Config problem: %s (running with defaults)\n", st.ConfigProblem)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Download\t%s\n", rateOf(st.Download))
	fmt.Fprintf(tw, "Upload\t%s\n", rateOf(st.Upload))
	cpu := fmt.Sprintf("%.0f %%", st.CPU.Own)
	if st.CPU.Cap > 0 {
		cpu += fmt.Sprintf(" of %.0f %%", st.CPU.Cap)
	}
	fmt.Fprintf(tw, "CPU\t%s (other programs %.0f %%)\n", cpu, st.CPU.Other)
	fmt.Fprintf(tw, "Memory\t%s\n", ofCap(config.Bytes(st.Memory.RSS).String(), st.Memory.Cap > 0, config.Bytes(st.Memory.Cap).String()))
	fmt.Fprintf(tw, "Connections\t%s\n", ofCap(fmt.Sprint(st.Connections.Open), st.Connections.Cap > 0, fmt.Sprint(st.Connections.Cap)))
	fmt.Fprintf(tw, "Transfer\ttoday %s, this month %s\n",
		ofCap(config.Bytes(st.Transfer.Today).String(), st.Transfer.DailyQuota > 0, config.Bytes(st.Transfer.DailyQuota).String()),
		ofCap(config.Bytes(st.Transfer.Month).String(), st.Transfer.MonthlyQuota > 0, config.Bytes(st.Transfer.MonthlyQuota).String()))
	aside := ""
	if n := len(st.Tasks.SetAside); n > 0 {
		aside = fmt.Sprintf(", %d set aside", n)
	}
	fmt.Fprintf(tw, "Tasks\t%d running, %d queued%s\n", len(st.Tasks.Running), st.Tasks.Queued, aside)
	for _, t := range st.Tasks.Running {
		el := ""
		if !t.Started.IsZero() {
			el = ", " + time.Since(t.Started).Round(time.Second).String()
		}
		pages := fmt.Sprintf("%d pages", t.Pages)
		if t.Pages == 1 {
			pages = "1 page"
		}
		if t.Known > t.Pages {
			pages = fmt.Sprintf("%d of %d pages found", t.Pages, t.Known)
		}
		if t.SecondsLeft > 0 {
			el += ", about " + (time.Duration(t.SecondsLeft) * time.Second).Round(time.Second).String() + " left"
		}
		fmt.Fprintf(tw, "\t  %s: %s, depth %d%s\n", t.Channel, pages, t.Depth, el)
	}
	for _, t := range st.Tasks.SetAside {
		fmt.Fprintf(tw, "\t  %s: %s (%s)\n", t.Channel, t.Reason, t.When.Local().Format("2 Jan 15:04"))
	}
	if o := st.Overlay; o != nil {
		fmt.Fprintf(tw, "Overlay\t%s\n", overlayLine(o))
	} else {
		fmt.Fprintf(tw, "Overlay\tnone (local mode: crawling a seeds file)\n")
	}
	fmt.Fprintf(tw, "Pages\ttoday %d, total %d\n", st.Pages.Today, st.Pages.Total)
	fmt.Fprintf(tw, "Credits\t%s confirmed, %s pending, %s a day recently\n", tenths(st.Credits.Confirmed), tenths(st.Credits.Pending), tenths(st.Credits.RecentAverage))
	if st.Credits.Revoked > 0 {
		fmt.Fprintf(tw, "\t%.1f revoked: results that failed a spot-check (see the Credits page)\n", st.Credits.Revoked)
	}
	if st.UIURL != "" {
		fmt.Fprintf(tw, "Dashboard\t%s\n", st.UIURL)
	}
	tw.Flush()
}

// overlayLine says how the client takes part: "solo mode, holding the
// whole space" or "network "x": 2 zones (12.5 % of the space), 5
// neighbours, 8 peers connected".
func overlayLine(o *localapi.Overlay) string {
	where := "solo mode"
	if o.Mode != "solo" {
		where = "network"
		if o.Network != "" {
			where += fmt.Sprintf(" %q", o.Network)
		}
	}
	if !o.Member || len(o.Zones) == 0 {
		return where + ": joining the overlay"
	}
	vol := 0.0
	for _, z := range o.Zones {
		v := 1.0
		for i := range z.Lo {
			v *= z.Hi[i] - z.Lo[i]
		}
		vol += v
	}
	if o.Mode == "solo" {
		return where + ": a one-peer overlay holding the whole space"
	}
	return fmt.Sprintf("%s: %d zone(s), %.1f %% of the space, %d neighbours, %d peers connected",
		where, len(o.Zones), 100*vol, len(o.Neighbours), o.Peers)
}

func rateOf(r localapi.Rate) string {
	cur := config.Bytes(r.Current).String() + "/s"
	if r.Cap <= 0 {
		return cur + " (no cap)"
	}
	return cur + " of " + config.Bytes(r.Cap).String() + "/s"
}

func ofCap(v string, capped bool, limit string) string {
	if !capped {
		return v
	}
	return v + " of " + limit
}

// tenths writes v to one decimal; a total a hair below zero (the ledger
// adds and takes away floats) is 0.0, never -0.0.
func tenths(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if s == "-0.0" {
		return "0.0"
	}
	return s
}
