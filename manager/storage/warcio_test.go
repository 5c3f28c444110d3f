package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// warcioRecord is what testdata/readwarc.mjs prints per record.
type warcioRecord struct {
	Type         string `json:"type"`
	Target       string `json:"target"`
	Declared     string `json:"declared"`
	Computed     string `json:"computed"`
	Digest       string `json:"digest"`
	Payload      string `json:"payload"`
	Status       int    `json:"status"`
	ID           string `json:"id"`
	ConcurrentTo string `json:"concurrentTo"`
	RefersTo     string `json:"refersTo"`
}

// installWarcio installs the npm package warcio into a temporary directory
// and returns it; it skips the test when node or the npm registry is not
// available, unless CI is set.
func installWarcio(t *testing.T) string {
	t.Helper()
	skip := func(why string, args ...any) {
		if os.Getenv("CI") != "" {
			t.Fatalf(why, args...)
		}
		t.Skipf(why+" (set CI to make this a failure)", args...)
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node not installed: %v", err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		skip("npm not installed: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "warcio@2")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		skip("npm install warcio failed (registry unreachable?): %v\n%s", err, out)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "readwarc.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "readwarc.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWARCReadsWithWarcio stores two uploads and reads the WARC output with
// warcio (JavaScript): record counts, targets, block digests and the pages'
// content digests must match.
func TestWARCReadsWithWarcio(t *testing.T) {
	dir := installWarcio(t)
	r := newRig(t)
	up, _ := r.client(t)
	want := map[string]string{}
	for round := 1; round <= 2; round++ {
		tk, env := r.issue(t, round)
		var pages []*task.Page
		for i := range 5 {
			u := fmt.Sprintf("http://site.example/r%d/p%d", round, i)
			text := fmt.Sprintf("round %d page %d: some extracted text ünïcødé", round, i)
			pages = append(pages, page(u, text))
			want[u] = fmt.Sprintf("%08x", uint32(task.DigestString(text)))
		}
		if _, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(WARCDir(r.dir), "*.warc.gz"))
	cmd := exec.Command("node", append([]string{"readwarc.mjs"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node readwarc.mjs: %v", err)
	}
	var recs []warcioRecord
	if err := json.Unmarshal(out, &recs); err != nil {
		t.Fatalf("warcio output: %v\n%s", err, out)
	}
	conversions := 0
	for _, rec := range recs {
		if rec.Declared != "" && rec.Declared != rec.Computed {
			t.Errorf("%s %s: declared %s, warcio computed %s", rec.Type, rec.Target, rec.Declared, rec.Computed)
		}
		if rec.Type != "conversion" {
			continue
		}
		conversions++
		if want[rec.Target] != rec.Digest {
			t.Errorf("%s: digest %q, want %q", rec.Target, rec.Digest, want[rec.Target])
		}
	}
	if conversions != len(want) || len(recs) != len(want)+len(files) {
		t.Fatalf("warcio read %d records, %d conversions from %d files; want %d conversions", len(recs), conversions, len(files), len(want))
	}
}

// warcioRead reads WARC files with warcio installed in dir (installWarcio).
func warcioRead(t *testing.T, dir string, files ...string) []warcioRecord {
	t.Helper()
	cmd := exec.Command("node", append([]string{"readwarc.mjs"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node readwarc.mjs: %v", err)
	}
	var recs []warcioRecord
	if err := json.Unmarshal(out, &recs); err != nil {
		t.Fatalf("warcio output: %v\n%s", err, out)
	}
	return recs
}
