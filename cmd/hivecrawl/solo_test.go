package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestSoloMode runs the main job as a user would on a fresh machine: the
// client with no network profile starts in solo mode and prints its
// dashboard link, `hivecrawl seed add` gives its embedded manager a site,
// and the site's pages come back as signed, confirmed credit and WARC
// records; SIGTERM stops it cleanly.
func TestSoloMode(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds and runs the client")
	}
	bin := buildBinary(t)
	srv := testSite(t)
	home, dirs := clientHome(t, `{"busy_threshold": 0, "cpu": 0, "delay": "10ms"}`)
	cmd, exited, out := start(t, bin, os.Environ(), "run", "--headless", "--allow-loopback", "--home", home)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "/ui/login?code=") {
		if time.Now().After(deadline) {
			t.Fatalf("no dashboard link printed:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "solo mode") {
		t.Errorf("the client did not say it runs in solo mode:\n%s", out.String())
	}

	add := exec.Command(bin, "seed", "add", "--home", home, srv.URL+"/s/0/")
	if b, err := add.CombinedOutput(); err != nil || !strings.Contains(string(b), "1 new channels") {
		t.Fatalf("seed add: %v\n%s", err, b)
	}
	info, err := loopback.ReadInfo(dirs.APIFile())
	if err != nil {
		t.Fatal(err)
	}
	api := localapi.NewClient(info)
	deadline = time.Now().Add(60 * time.Second)
	for {
		st, err := api.Status(context.Background())
		if err == nil && st.Credits.Confirmed > 0 {
			if st.Overlay == nil || st.Overlay.Mode != "solo" || len(st.Overlay.Zones) != 1 {
				t.Errorf("overlay status %+v, want solo mode holding the whole space", st.Overlay)
			}
			if st.Credits.Pending != 0 {
				t.Errorf("%.2f credits pending: solo receipts are signed and should be confirmed", st.Credits.Pending)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no confirmed credit within a minute (last status %+v, %v)\n%s", st, err, out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// `hivecrawl search` finds a phrase of one stored page.
	if b, err := exec.Command(bin, "search", "--home", home, `title:"site 0 p2.html"`).CombinedOutput(); err != nil ||
		!strings.Contains(string(b), srv.URL+"/s/0/p2.html\n") || !strings.Contains(string(b), "1 of 1 pages shown") {
		t.Errorf("search: %v\n%s", err, b)
	}

	// The channel as `hivecrawl channels` shows it, and its actions.
	host := strings.TrimPrefix(srv.URL, "http://")
	run := func(args ...string) (string, error) {
		b, err := exec.Command(bin, append([]string{"channels", "--home", home}, args...)...).CombinedOutput()
		return string(b), err
	}
	for _, tc := range []struct {
		args []string
		want string // in the output; a leading ! wants a failure
	}{
		{nil, host},
		{[]string{"--json"}, `"state": "`},
		{[]string{"set", host, "depth=1", "other-hosts=on"}, host + ": depth 1, pages default, other hosts on"},
		{[]string{"set", host, "depth=x"}, "!not a whole number"},
		{[]string{"pause", host}, host + ": paused: paused by you"},
		{nil, "paused by you"},
		{[]string{"crawl", "nowhere.example"}, "!no channel"},
		{[]string{"explode", host}, "!unknown action"},
		{[]string{"add", "http://10.0.0.1/"}, "!only public web sites"},
		{[]string{"remove", host}, host + ": removed"},
		{nil, "No channels yet"},
	} {
		out, err := run(tc.args...)
		want, fails := strings.CutPrefix(tc.want, "!")
		if (err != nil) != fails || !strings.Contains(out, want) {
			t.Errorf("channels %v: %v\n%s\nwant %q", tc.args, err, out, tc.want)
		}
	}

	warcs, _ := filepath.Glob(filepath.Join(dirs.Data, "manager", "warc", "*.warc.gz"))
	if len(warcs) == 0 {
		t.Error("no WARC file under the embedded manager's data directory")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("client exited with %v after SIGTERM\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("client did not stop within 30s of SIGTERM")
	}
}

// clientHome makes a fresh --home whose settings file holds config (the
// tests pass "busy_threshold": 0 and "cpu": 0: the test machine is
// shared, and the client must never pause for other programs' load).
func clientHome(t *testing.T, config string) (string, paths.Dirs) {
	t.Helper()
	home := t.TempDir()
	dirs, err := paths.Resolve(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := dirs.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dirs.ConfigFile(), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, dirs
}
