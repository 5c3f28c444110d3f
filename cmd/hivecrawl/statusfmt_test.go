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
