package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestNewRefusesAPolicyUnderTheFloor: a manager does not start with a
// policy its volunteers' clients would refuse (internal/floor), and says
// why and what to do; it writes no profile.
func TestNewRefusesAPolicyUnderTheFloor(t *testing.T) {
	const id = "12D3KooWGRUVh7Pyw3bGdT5ab2gVGgXHcP8bMJTKpB8zB3NdgyKc"
	for _, tc := range []struct {
		name string
		opt  func(*Options)
		want string
	}{
		{"a millisecond's wait", func(o *Options) { o.AllowLoopback, o.Politeness.Delay = false, time.Millisecond },
			"wait only 1ms between requests to one web site"},
		{"another crawler's User-Agent", func(o *Options) {
			o.Politeness.Policy.UserAgent = "Googlebot/2.1 (+http://www.google.com/bot.html)"
		}, `names the crawler "googlebot"`},
		{"another crawler's robots.txt token", func(o *Options) { o.Politeness.Policy.Token = "bingbot" }, `names the crawler "bingbot"`},
		{"a private bootstrap peer", func(o *Options) { o.Bootstrap = []string{"/ip4/192.168.1.1/tcp/4901/p2p/" + id} },
			"bootstrap address /ip4/192.168.1.1/tcp/4901/p2p/" + id + " is in a private network range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Logger: quiet, Placement: PlacementOptions{Submit: submitOpts}}
			tc.opt(&o)
			m, err := New(context.Background(), o)
			if err == nil {
				m.Close()
				t.Fatal("New started a manager with a policy under the floor")
			}
			if !errors.Is(err, floor.ErrRefused) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "volunteers would refuse") {
				t.Fatalf("New = %v, want a refusal saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ProfileFile)); !os.IsNotExist(err) {
				t.Fatalf("a profile was written (%v)", err)
			}
		})
	}
	// The test-only switch lifts the wait's floor, for local fixtures.
	m, err := New(context.Background(), Options{
		Dir:           t.TempDir(),
		Listen:        []string{"/ip4/127.0.0.1/tcp/0"},
		AllowLoopback: true,
		Logger:        quiet,
		Placement:     PlacementOptions{Submit: submitOpts},
		Politeness:    PolitenessOptions{Delay: 20 * time.Millisecond, Policy: task.Policy{UserAgent: "Examplenet/1.0 (+https://example.org/bot)"}},
	})
	if err != nil {
		t.Fatalf("New under the loopback switch: %v", err)
	}
	m.Close()
}
