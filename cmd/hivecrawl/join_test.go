package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

// TestJoinExplainsABadProfile checks that join says what is wrong with the
// file it was given and what to do, not the JSON decoder's words.
func TestJoinExplainsABadProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"not JSON", write("page.html", "<!doctype html>\n<p>join us</p>\n"),
			"page.html: invalid network profile: it is not JSON (line 1, column 1); ask the network's operator for the profile file their manager writes"},
		{"unknown field", write("other.txt", `{"version": 1, "peers": []}`),
			`other.txt: invalid network profile: it has an unknown field "peers"`},
		{"missing", filepath.Join(dir, "nowhere.txt"),
			"there is no file " + filepath.Join(dir, "nowhere.txt") + ": give the path of the network profile, or ask the network's operator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := joinMain(context.Background(), []string{tc.path, "--home", t.TempDir()}, &out, &errb)
			if code != 1 {
				t.Fatalf("join = %d, want 1 (stdout %q, stderr %q)", code, out.String(), errb.String())
			}
			msg := errb.String()
			if !strings.HasPrefix(msg, "hivecrawl join: ") || !strings.Contains(msg, tc.want) {
				t.Fatalf("join said %q, want it to hold %q", msg, tc.want)
			}
			for _, raw := range []string{"json:", "invalid character", "read network profile"} {
				if strings.Contains(msg, raw) {
					t.Errorf("join said %q: has %q", msg, raw)
				}
			}
		})
	}
}

// testProfile writes a valid network profile named name and returns its
// path.
func testProfile(t *testing.T, name string) string {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.New(name, k.GetPublic(), []string{"/ip4/127.0.0.1/tcp/4901/p2p/" + id.String()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), profile.FileName)
	if err := profile.Write(path, p); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLeave checks that leave undoes join: the stored profile goes, so the
// client starts in solo mode; a running client is told to restart, as
// after join; leaving twice is no mistake.
func TestLeave(t *testing.T) {
	var page bytes.Buffer
	writeManPage(&page)
	if !strings.Contains(page.String(), ".SS leave\n") {
		t.Error("the man page has no leave command")
	}
	ctx := context.Background()
	prof := testProfile(t, "Example Net")
	for _, tc := range []struct {
		name    string
		running bool
		want    string
	}{
		{"stopped", false, "Hivecrawl runs in solo mode from its next start."},
		{"running", true, "Restart Hivecrawl to go back to solo mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.running {
				home, _ = ctlClient(t)
			}
			var out, errb bytes.Buffer
			if code := joinMain(ctx, []string{prof, "--home", home, "--allow-loopback"}, &out, &errb); code != 0 {
				t.Fatalf("join = %d: %s", code, errb.String())
			}
			dirs, err := paths.Resolve(home)
			if err != nil {
				t.Fatal(err)
			}
			stored := filepath.Join(dirs.Config, profile.FileName)
			if _, err := os.Stat(stored); err != nil {
				t.Fatalf("join stored no profile: %v", err)
			}
			out.Reset()
			if code := leaveMain(ctx, []string{"--home", home}, &out, &errb); code != 0 {
				t.Fatalf("leave = %d: %s", code, errb.String())
			}
			if _, err := os.Stat(stored); !os.IsNotExist(err) {
				t.Fatalf("the profile is still there after leave (%v)", err)
			}
			if got := out.String(); !strings.HasPrefix(got, "Left the network of Example Net (removed "+stored+").") || !strings.Contains(got, tc.want) {
				t.Fatalf("leave said %q, want the network's name and %q", got, tc.want)
			}
			out.Reset()
			if code := leaveMain(ctx, []string{"--home", home}, &out, &errb); code != 0 {
				t.Fatalf("leave again = %d: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), "already runs in solo mode") {
				t.Fatalf("leave again said %q", out.String())
			}
		})
	}
}

// TestJoinWarnsAnOutdatedClient: a profile whose network takes only newer
// clients is stored, and join says at once that this one must be updated.
func TestJoinWarnsAnOutdatedClient(t *testing.T) {
	for _, tc := range []struct {
		name, min string
		warn      bool
	}{
		{"newer required", "99.0.0", true},
		{"this version", version, false},
		{"no minimum", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testProfile(t, "net")
			p, err := profile.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			p.MinClientVersion = tc.min
			if err := profile.Write(path, p); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := joinMain(context.Background(), []string{path, "--home", t.TempDir(), "--allow-loopback"}, &out, &errb); code != 0 {
				t.Fatalf("join = %d (stderr %q)", code, errb.String())
			}
			warned := strings.Contains(errb.String(), "update it first")
			if warned != tc.warn || (tc.warn && !strings.Contains(errb.String(), "Hivecrawl 99.0.0 or newer, and this is "+version)) {
				t.Fatalf("join with minimum %q said %q on stderr, want a warning: %v", tc.min, errb.String(), tc.warn)
			}
		})
	}
}

// TestJoinRefusesPrivateBootstrapPeers: join stores no profile whose
// bootstrap peers are on this machine or the volunteer's own network,
// and says why; the test-only switch lets loopback through.
func TestJoinRefusesPrivateBootstrapPeers(t *testing.T) {
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := peer.IDFromPrivateKey(k)
	for _, tc := range []struct {
		name, addr string
		flags      []string
		want       string // "" = joined
	}{
		{"loopback", "/ip4/127.0.0.1/tcp/4901", nil, "is on this machine (loopback)"},
		{"a home router", "/ip4/192.168.1.1/tcp/80", nil, "is in a private network range"},
		{"link-local", "/ip4/169.254.169.254/tcp/80", nil, "is link-local"},
		{"private under the loopback switch", "/ip4/10.1.2.3/tcp/4901", []string{"--allow-loopback"}, "is in a private network range"},
		{"loopback under the test switch", "/ip4/127.0.0.1/tcp/4901", []string{"--allow-loopback"}, ""},
		{"public", "/ip4/93.184.216.34/tcp/4901", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := profile.New("net", k.GetPublic(), []string{tc.addr + "/p2p/" + id.String()})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), profile.FileName)
			if err := profile.Write(path, p); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			var out, errb bytes.Buffer
			code := joinMain(context.Background(), append([]string{path, "--home", home}, tc.flags...), &out, &errb)
			stored := filepath.Join(home, "config", profile.FileName)
			_, serr := os.Stat(stored)
			if tc.want == "" {
				if code != 0 || serr != nil {
					t.Fatalf("join = %d (stderr %q, stored: %v), want joined", code, errb.String(), serr)
				}
				return
			}
			if code != 1 || !strings.Contains(errb.String(), tc.want) || !strings.Contains(errb.String(), "Hivecrawl did not join") {
				t.Fatalf("join = %d, said %q; want 1 and %q", code, errb.String(), tc.want)
			}
			if !os.IsNotExist(serr) {
				t.Fatalf("a refused profile was stored (%v)", serr)
			}
		})
	}
}
