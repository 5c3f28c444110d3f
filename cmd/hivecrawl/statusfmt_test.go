package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func TestStatusShowsTaskProgress(t *testing.T) {
	var b bytes.Buffer
	writeStatus(&b, localapi.Status{State: "running", Tasks: localapi.Tasks{Running: []localapi.RunningTask{
		{Channel: "a.example", Pages: 12, Known: 40, PagesLeft: 28, SecondsLeft: 95, Depth: 2, Started: time.Now().Add(-time.Minute)},
		{Channel: "b.example", Pages: 1, Known: 1, Depth: 0},
	}}})
	for _, want := range []string{"a.example: 12 of 40 pages found, depth 2, 1m0s, about 1m35s left", "b.example: 1 page, depth 0\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}

// A ledger's pending total that sums to nothing can be a hair below zero;
// status says 0.0, not -0.0.
func TestStatusCreditsNeverNegativeZero(t *testing.T) {
	var b bytes.Buffer
	writeStatus(&b, localapi.Status{State: "running", Credits: localapi.Credits{Confirmed: 36, Pending: 5.4 - 5.4 - 1e-14}})
	if !strings.Contains(b.String(), "36.0 confirmed, 0.0 pending") || strings.Contains(b.String(), "-0") {
		t.Errorf("credits line:\n%s", b.String())
	}
}

// TestStateLineSaysItOnce checks that the one-line state does not repeat
// the state's word that each reason begins with.
func TestStateLineSaysItOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		state   string
		reasons []string
		want    string
	}{
		{"running", "running", nil, "Hivecrawl is running"},
		{"paused by you", "paused", []string{"Paused by you"}, "Hivecrawl is paused by you"},
		{"busy", "paused", []string{"Paused: other programs are using 63 % CPU"},
			"Hivecrawl is paused: other programs are using 63 % CPU"},
		{"memory", "paused", []string{"Paused: Hivecrawl is using 600 MB of memory, over its cap of 512 MB"},
			"Hivecrawl is paused: Hivecrawl is using 600 MB of memory, over its cap of 512 MB"},
		{"snoozed", "paused", []string{"Snoozed until 14:05"}, "Hivecrawl is paused: snoozed until 14:05"},
		{"two reasons", "paused", []string{"Paused: outside the crawl schedule until Mon 18:00", "Paused by you"},
			"Hivecrawl is paused: outside the crawl schedule until Mon 18:00; paused by you"},
		{"by you, then busy", "paused", []string{"Paused by you", "Paused: daily transfer quota of 500 MB reached"},
			"Hivecrawl is paused by you; daily transfer quota of 500 MB reached"},
		{"throttled", "throttled", []string{"Throttled: download at its cap of 100 KB/s", "Throttled: Hivecrawl is held to 30 % CPU"},
			"Hivecrawl is throttled: download at its cap of 100 KB/s; Hivecrawl is held to 30 % CPU"},
		{"CPU first", "throttled", []string{"CPU held to 30 %"}, "Hivecrawl is throttled: CPU held to 30 %"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stateLine(localapi.Status{State: tc.state, Reasons: tc.reasons}); got != tc.want {
				t.Fatalf("stateLine = %q, want %q", got, tc.want)
			}
		})
	}
}
