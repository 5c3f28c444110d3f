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
