package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/manager"
)

// TestOptOutCommand: 'hivecrawl optout' reaches the manager running with
// the same --home: add says what it removed, list shows who asked, a
// public suffix is refused with nothing added, remove lifts the entry;
// without a running manager it says how to start one.
func TestOptOutCommand(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := optoutMain(ctx, append(args, "--home", home), &o, &e)
		return code, o.String(), e.String()
	}
	if code, _, stderr := run("list"); code == 0 || !strings.Contains(stderr, "no manager is running") {
		t.Fatalf("without a manager: %d %q", code, stderr)
	}
	dirs, err := paths.Resolve(home)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manager.New(ctx, manager.Options{Dir: managerDir(dirs), Listen: []string{"/ip4/127.0.0.1/tcp/0"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Serve(sctx) }()
	t.Cleanup(func() { stop(); <-done })
	if _, err := m.AddSeeds([]string{"https://www.example.com/", "https://shop.example.com/"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args         []string
		code         int
		stdout, says string
	}{
		{[]string{"add"}, 2, "", "usage: hivecrawl optout"},
		{[]string{"list", "example.com"}, 2, "", "usage: hivecrawl optout"},
		{[]string{"add", "example.com", "co.uk"}, 1, "", "co.uk is not a web site"},
		{[]string{"list"}, 0, "No site has opted out.\n", ""},
		{[]string{"add", "https://Example.com/about"}, 0, "Opted out example.com and every host under it: 2 channels removed, 0 running crawls told to stop\n", ""},
		{[]string{"add", "example.com"}, 0, "Opted out already: example.com and every host under it\n", ""},
		{[]string{"list"}, 0, "example.com\tdomain\t", ""},
		{[]string{"remove", "example.com", "www.example.org"}, 0, "Off the opt-out list: example.com", ""},
		{[]string{"list"}, 0, "No site has opted out.\n", ""},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != tc.code || !strings.HasPrefix(stdout, tc.stdout) || !strings.Contains(stderr, tc.says) {
			t.Errorf("optout %s = %d, stdout %q, stderr %q; want %d, %q, %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.code, tc.stdout, tc.says)
		}
	}
}
