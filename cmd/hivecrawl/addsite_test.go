package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAddSiteOneWay: solo mode's start message names the one command that
// adds a site; `channels add`, `seed add` and `seed add --manager` refuse
// a loopback seed at once with the same sentence and add nothing; a site
// added while the client is paused is accepted, the answer says why no
// crawl starts, and its channel says "paused" with that reason.
func TestAddSiteOneWay(t *testing.T) {
	t.Parallel() // it mostly waits: see scripts/test.sh
	if testing.Short() {
		t.Skip("builds and runs the client")
	}
	bin := buildBinary(t)
	home, _ := clientHome(t, `{"busy_threshold": 0, "cpu": 0}`)
	// No --allow-loopback: loopback fixtures are refused as a user's would.
	cmd, exited, out := start(t, bin, os.Environ(), "run", "--headless", "--home", home)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "/ui/login?code=") {
		if time.Now().After(deadline) {
			t.Fatalf("no dashboard link printed:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := out.String(); !strings.Contains(s, "with 'hivecrawl channels add URL'") || strings.Contains(s, "seed add") {
		t.Errorf("the start message does not name 'hivecrawl channels add URL' alone:\n%s", s)
	}

	hc := func(args ...string) (stdout, stderr string, err error) {
		var o, e bytes.Buffer
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = &o, &e
		err = c.Run()
		return o.String(), e.String(), err
	}
	loopback := testSite(t).URL + "/"
	var sentence string
	for _, tc := range []struct {
		prefix string
		args   []string
	}{
		{"hivecrawl channels add: ", []string{"channels", "add", "--home", home, loopback}},
		{"hivecrawl seed add: ", []string{"seed", "add", "--home", home, loopback}},
		{"hivecrawl seed add: ", []string{"seed", "add", "--manager", "--home", home, loopback}},
	} {
		stdout, stderr, err := hc(tc.args...)
		said, ok := strings.CutPrefix(stderr, tc.prefix)
		if err == nil || !ok || stdout != "" || !strings.Contains(said, "is not a public address") {
			t.Errorf("hivecrawl %s: %v, stdout %q, stderr %q; want a refusal", strings.Join(tc.args, " "), err, stdout, stderr)
			continue
		}
		if sentence == "" {
			sentence = said
			t.Logf("the refusal: %s", said)
		} else if said != sentence {
			t.Errorf("hivecrawl %s said %q, want the same sentence as channels add: %q", strings.Join(tc.args, " "), said, sentence)
		}
	}
	if stdout, _, err := hc("channels", "--home", home); err != nil || !strings.Contains(stdout, "No channels yet") {
		t.Errorf("channels after refusals: %v\n%s", err, stdout)
	}

	if _, stderr, err := hc("pause", "--home", home); err != nil {
		t.Fatalf("pause: %v\n%s", err, stderr)
	}
	stdout, stderr, err := hc("seed", "add", "--home", home, "http://a.example/")
	if err != nil || !strings.Contains(stdout, "1 new channels a.example") || !strings.Contains(stdout, "Hivecrawl is paused (Paused by you)") {
		t.Errorf("seed add while paused: %v\n%s%s", err, stdout, stderr)
	}
	stdout, stderr, err = hc("channels", "add", "--home", home, "http://a.example/")
	if err != nil || !strings.Contains(stdout, "0 seed URLs added") || !strings.Contains(stdout, "Already seeds, nothing changed: http://a.example/") {
		t.Errorf("channels add of a known seed: %v\n%s%s", err, stdout, stderr)
	}
	stdout, stderr, err = hc("channels", "--home", home)
	if row := strings.Fields(lineOf(stdout, "a.example ")); err != nil || len(row) < 2 || row[1] != "paused" ||
		!strings.Contains(stdout, "Hivecrawl is paused (Paused by you)") {
		t.Errorf("channels while paused: %v\n%s%s", err, stdout, stderr)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("client exit: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the client did not stop on SIGTERM\n%s", out.String())
	}
}

// lineOf returns the first line of s that starts with prefix.
func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
