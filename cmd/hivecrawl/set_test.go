package main

import (
	"os"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/paths"
)

// TestSetKeepsHandEdits edits the running client's config.json by hand,
// then runs `hivecrawl set`: the edit survives, and an edit that does not
// load is refused in words, not overwritten.
func TestSetKeepsHandEdits(t *testing.T) {
	home, _ := ctlClient(t)
	dirs, err := paths.Resolve(home)
	if err != nil {
		t.Fatal(err)
	}
	file := dirs.ConfigFile()
	if err := os.WriteFile(file, []byte("{\"busy_threshold\": 0, \"download\": \"3MB/s\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := ctlRun(ctlCmd("set"), "--home", home, "upload=1MB/s"); code != 0 {
		t.Fatalf("set = %d: %s", code, errs)
	}
	c, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.Download != 3_000_000 || c.Upload != 1_000_000 {
		t.Fatalf("config.json after set: download %v, upload %v; want the hand edit's 3MB/s kept beside 1MB/s", c.Download, c.Upload)
	}

	broken := "{\"download\": \"3MB/s\",\n \"upload\": 1MB/s}\n"
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := ctlRun(ctlCmd("set"), "--home", home, "threads=2")
	if code != 1 || strings.Count(errs, "\n") != 1 ||
		!strings.HasPrefix(errs, "hivecrawl set: "+file+" was changed outside Hivecrawl and does not load (line 2") ||
		!strings.Contains(errs, "fix it, or undo the change, and try again") {
		t.Fatalf("set over a broken edit = %d, %q", code, errs)
	}
	if got, _ := os.ReadFile(file); string(got) != broken {
		t.Fatalf("the broken edit was overwritten: %q", got)
	}
}
