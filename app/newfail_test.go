package app

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
)

// New fails at each of its steps with an error saying what, never a
// panic, and closes what it had opened: the queue and the ledger can be
// opened again at once.
func TestNewFailsCleanly(t *testing.T) {
	srv := smallSites(t)
	seeds := writeSeeds(t, srv, 1)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port

	cases := []struct {
		name    string
		prepare func(t *testing.T, home string, o *Options) (cleanup func())
		want    string
	}{
		{"home is a file", func(t *testing.T, home string, o *Options) func() {
			f := filepath.Join(home, "file")
			os.WriteFile(f, nil, 0o600)
			o.Home = f
			return nil
		}, "file"},
		{"ledger unusable", func(t *testing.T, home string, o *Options) func() {
			os.MkdirAll(filepath.Join(home, "data", "ledger.db", "x"), 0o700)
			return nil
		}, "ledger.db"},
		{"queue held by another process", func(t *testing.T, home string, o *Options) func() {
			os.MkdirAll(filepath.Join(home, "data"), 0o700)
			q, err := queue.Open(filepath.Join(home, "data", "queue.db"), queue.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { q.Close() }
		}, "queue"},
		{"spool directory is a file", func(t *testing.T, home string, o *Options) func() {
			os.MkdirAll(filepath.Join(home, "data"), 0o700)
			os.WriteFile(filepath.Join(home, "data", "spool"), nil, 0o600)
			return nil
		}, "spool"},
		{"solo mode, listen port busy", func(t *testing.T, home string, o *Options) func() {
			o.Mode, o.Seeds = ModeSolo, ""
			o.Network.Listen = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", busyPort)}
			return nil
		}, "listen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			o := Options{Home: home, Mode: ModeLocal, Seeds: seeds, AllowLoopback: true, Logger: quiet, Version: "test"}
			if cleanup := tc.prepare(t, home, &o); cleanup != nil {
				defer cleanup()
			}
			var c *Client
			err := func() (err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				c, err = New(context.Background(), o)
				return err
			}()
			if err == nil {
				c.Close()
				t.Fatal("New succeeded")
			}
			if strings.HasPrefix(err.Error(), "panic") || !strings.Contains(strings.ToLower(err.Error()), tc.want) {
				t.Fatalf("New = %v, want an error about %s", err, tc.want)
			}
			// Nothing is left open: both files open again without waiting.
			data := filepath.Join(o.Home, "data")
			if fi, err := os.Stat(filepath.Join(data, "queue.db")); err == nil && fi.Mode().IsRegular() && tc.name != "queue held by another process" {
				q, err := queue.Open(filepath.Join(data, "queue.db"), queue.Options{LockTimeout: 100 * time.Millisecond})
				if err != nil {
					t.Errorf("queue left open by the failed New: %v", err)
				} else {
					q.Close()
				}
			}
			if fi, err := os.Stat(filepath.Join(data, "ledger.db")); err == nil && fi.Mode().IsRegular() {
				l, err := ledger.Open(filepath.Join(data, "ledger.db"))
				if err != nil {
					t.Errorf("ledger left open by the failed New: %v", err)
				} else {
					l.Close()
				}
			}
		})
	}
}
