package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
