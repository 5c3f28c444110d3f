package eventlog

import (
	"strconv"
	"strings"
	"time"
)

// Sentence says what the event means in a plain sentence a volunteer can
// read, without the record's keys ("Finished crawling example.org: 36
// pages in 1 s."). Events it does not know read as their message; the
// attributes stay in Attrs for whoever wants the details.
func (e Event) Sentence() string {
	a := make(map[string]string, len(e.Attrs))
	for _, kv := range e.Attrs {
		k, v, _ := strings.Cut(kv, "=")
		a[k] = v
	}
	if say, ok := sentences[e.Message]; ok {
		if s := say(a); s != "" {
			return s
		}
	}
	return period(e.Message)
}

// sentences words the events a volunteer meets most, by message. A
// function may return "" to fall back on the message.
var sentences = map[string]func(a map[string]string) string{
	"Client started": func(map[string]string) string { return "Hivecrawl started." },
	"Client stopped": func(map[string]string) string { return "Hivecrawl stopped." },
	"Task started": func(a map[string]string) string {
		s := "Started crawling " + site(a)
		if n, err := strconv.Atoi(a["attempt"]); err == nil && n > 1 {
			s += " (attempt " + a["attempt"] + ")"
		}
		return s + "."
	},
	"Task done": func(a map[string]string) string {
		s := "Finished crawling " + site(a) + ": " + count(a["pages"], "page")
		if d, err := time.ParseDuration(a["elapsed"]); err == nil {
			s += " in " + duration(d)
		}
		return s + "."
	},
	"Result uploaded": func(a map[string]string) string { return "Delivered what was crawled of " + site(a) + "." },
	"Upload stored": func(a map[string]string) string {
		var parts []string
		for _, k := range []string{"new", "changed", "unchanged"} {
			if v := a[k]; v != "" && v != "0" {
				parts = append(parts, v+" "+k)
			}
		}
		pages := "no pages"
		switch len(parts) {
		case 1:
			pages = count(strings.Fields(parts[0])[0], strings.Fields(parts[0])[1]+" page")
		case 2, 3:
			pages = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " pages"
		}
		return "Stored " + pages + " for " + credits(a["credits"]) + "."
	},
	"Host started": func(a map[string]string) string {
		if strings.Contains(a["part"], "manager") {
			return "The manager is ready for peer-to-peer connections."
		}
		return "Ready for peer-to-peer connections."
	},
	"Credit settled": func(a map[string]string) string {
		switch a["state"] {
		case "confirmed":
			return "Credits confirmed: another volunteer's spot-check agreed."
		case "revoked":
			return period("Credits revoked: " + orDefault(a["reason"], "a spot-check disagreed"))
		}
		return ""
	},
	"Task interrupted by shutdown": func(a map[string]string) string {
		return "Stopped crawling " + site(a) + " to shut down; it goes on at the next start."
	},
	"Task resumed from its checkpoint": func(a map[string]string) string {
		return "Went on crawling " + site(a) + " where it stopped (" + count(a["pages"], "page") + " already done)."
	},
	"Task set aside after crashes": func(a map[string]string) string {
		return period("Set aside " + site(a) + " after " + count(a["crashes"], "crash") + ": " + orDefault(a["reason"], "it kept failing"))
	},
	"Task cancelled": func(a map[string]string) string {
		return period("Cancelled the crawl of " + site(a) + ": " + orDefault(a["reason"], "no reason given"))
	},
	"Crawling state changed": func(a map[string]string) string {
		// The governor's reasons are sentences already ("Paused: other
		// programs are using 63 % CPU"), joined by "; ".
		r := strings.TrimSuffix(strings.TrimPrefix(a["reasons"], "["), "]")
		if r == "" {
			return "Crawling freely again: nothing holds it back."
		}
		return period(r)
	},
	"Configuration changed":  func(map[string]string) string { return "Settings changed." },
	"Start at login changed": func(a map[string]string) string { return "Start at login turned " + onOff(a["on"]) + "." },
	"Seeds added":            func(a map[string]string) string { return "Added " + count(a["urls"], "seed URL") + "." },
	"Channel settings changed": func(a map[string]string) string {
		return "Changed the settings of " + orDefault(a["channel"], "a channel") + "."
	},
	"Channel paused":  channelDid("Paused"),
	"Channel resumed": channelDid("Resumed"),
	"Channel removed": channelDid("Removed"),
	"Channel to be crawled now": func(a map[string]string) string {
		return "Asked for " + orDefault(a["channel"], "a channel") + " to be crawled now."
	},
	"Started the overlay as its first peer": func(map[string]string) string {
		return "Started this computer's own overlay (solo mode)."
	},
	"Joined the overlay": func(map[string]string) string { return "Joined the network's overlay." },
}

// site names an event's channel, or says "a site".
func site(a map[string]string) string { return orDefault(a["channel"], "a site") }

func channelDid(verb string) func(map[string]string) string {
	return func(a map[string]string) string { return verb + " the channel " + orDefault(a["channel"], "?") + "." }
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// count writes n noun, plural when n is not 1 ("36 pages", "1 crash").
func count(n, noun string) string {
	if n == "" {
		n = "0"
	}
	if n == "1" {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "sh") {
		return n + " " + noun + "es"
	}
	return n + " " + noun + "s"
}

// credits writes a credit amount to a tenth.
func credits(v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "credits"
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	s = strings.TrimSuffix(s, ".0")
	if s == "1" {
		return "1 credit"
	}
	return s + " credits"
}

// duration writes d as people say it: "under a second", "12 s",
// "3 min 4 s", "1 h 2 min".
func duration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 1:
		return "under a second"
	case s < 60:
		return strconv.Itoa(s) + " s"
	case s < 3600:
		return strconv.Itoa(s/60) + " min " + strconv.Itoa(s%60) + " s"
	}
	return strconv.Itoa(s/3600) + " h " + strconv.Itoa(s%3600/60) + " min"
}

func onOff(v string) string {
	if v == "true" {
		return "on"
	}
	return "off"
}

// period ends s with a full stop unless it ends a sentence already.
func period(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}
