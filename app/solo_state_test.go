package app

import (
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func TestChannelState(t *testing.T) {
	tests := []struct {
		name   string
		c      channels.Channel
		client string // why the client is paused
		state  string
		reason string // a part of it; "" wants none
	}{
		{"new", channels.Channel{}, "", localapi.StateWaiting, ""},
		{"crawling beats paused", channels.Channel{Pending: 1, Paused: true}, "", localapi.StateCrawling, ""},
		{"crawl asked for", channels.Channel{CrawlSoon: true, Paused: true}, "", localapi.StateStarting, ""},
		{"paused", channels.Channel{Paused: true, Last: &channels.LastCrawl{Lost: "lost"}}, "", localapi.StatePaused, "paused by you"},
		{"pages fetched", channels.Channel{Last: &channels.LastCrawl{Pages: 3, Errors: map[string]int{"http_404": 1}}}, "", localapi.StateWaiting, ""},
		{"cut short at the page limit", channels.Channel{Last: &channels.LastCrawl{Pages: 3, Stopped: "max pages"}}, "", localapi.StateWaiting, ""},
		{"private address", channels.Channel{Last: &channels.LastCrawl{Stopped: "forbidden address"}}, "", localapi.StateFailing, "only public web sites"},
		{"robots.txt unreadable", channels.Channel{Last: &channels.LastCrawl{Stopped: "robots.txt unavailable"}}, "", localapi.StateFailing, "robots.txt could not be read"},
		{"unreachable", channels.Channel{Last: &channels.LastCrawl{Stopped: "unreachable: DNS lookup failed for example.org: no such host"}}, "", localapi.StateFailing, "could not be reached (DNS lookup failed for example.org: no such host)"},
		{"lost", channels.Channel{Last: &channels.LastCrawl{Lost: "lost"}}, "", localapi.StateFailing, "no result in time"},
		{"cancelled", channels.Channel{Last: &channels.LastCrawl{Lost: "expired"}}, "", localapi.StateFailing, "cancelled the last crawl: expired"},
		{"retry later", channels.Channel{Last: &channels.LastCrawl{Pages: 2, Stopped: "server asked to retry after 1h0m0s"}}, "", localapi.StateFailing, "asked to retry after 1h0m0s"},
		{"errors, most frequent first", channels.Channel{Last: &channels.LastCrawl{Errors: map[string]int{"dns": 1, "http_503": 3}}}, "", localapi.StateFailing, "HTTP 503 (3 times); the host name does not resolve"},
		{"client paused, crawl out", channels.Channel{Pending: 1}, "Paused by you", localapi.StatePaused, "Hivecrawl is paused (Paused by you)"},
		{"client paused, new", channels.Channel{}, "daily transfer quota of 1 GiB reached", localapi.StatePaused, "Hivecrawl is paused (daily transfer quota of 1 GiB reached): its crawls start when crawling resumes"},
		{"client paused beats failing", channels.Channel{Last: &channels.LastCrawl{Lost: "lost"}}, "Snoozed until 14:00", localapi.StatePaused, "Snoozed until 14:00"},
		{"client and channel paused", channels.Channel{Paused: true}, "Paused by you", localapi.StatePaused, "paused by you: resume it, or crawl it now once; Hivecrawl is paused"},
		{"nothing allowed", channels.Channel{Last: &channels.LastCrawl{}}, "", localapi.StateFailing, "robots.txt disallows every seed"},
		{"refused by content signals", channels.Channel{Last: &channels.LastCrawl{Stopped: "refused by content signals: robots.txt Content-Signal: search=n"}}, "",
			localapi.StateFailing, "robots.txt refuses search (robots.txt Content-Signal: search=n)"},
		{"payment required", channels.Channel{Last: &channels.LastCrawl{Errors: map[string]int{"http_402": 1}}}, "", localapi.StateFailing, "asks payment to be crawled (HTTP 402)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, reason := channelState(tt.c, tt.client)
			if state != tt.state || (tt.reason == "") != (reason == "") || !strings.Contains(reason, tt.reason) {
				t.Fatalf("channelState = %q, %q; want %q with %q", state, reason, tt.state, tt.reason)
			}
		})
	}
}
