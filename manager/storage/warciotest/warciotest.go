// Package warciotest reads WARC files with warcio, the Webrecorder
// project's JavaScript reader, for tests: an independent check that what
// the storage module writes is WARC others can read. It installs warcio
// from npm into a temporary directory; a test is skipped when node, npm
// or the registry is missing, unless the CI variable is set, when it
// fails (CI installs node and npm: scripts/test.sh).
package warciotest

import (
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed readwarc.mjs
var script []byte

// Record is what warcio read of one record.
type Record struct {
	Type     string `json:"type"`
	Target   string `json:"target"`
	Declared string `json:"declared"` // the block digest the record declares
	Computed string `json:"computed"` // the block digest warcio computed
	Digest   string `json:"digest"`
	Payload  string `json:"payload"`
	Status   int    `json:"status"`
	ID       string `json:"id"`
	// ConcurrentTo and RefersTo link a response and its conversion.
	ConcurrentTo string `json:"concurrentTo"`
	RefersTo     string `json:"refersTo"`
}

// Reader is warcio installed for a test.
type Reader struct{ dir string }

// Install installs warcio for t.
func Install(t testing.TB) *Reader {
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
	if err := os.WriteFile(filepath.Join(dir, "readwarc.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return &Reader{dir: dir}
}

// Read reads the records of WARC files.
func (r *Reader) Read(t testing.TB, files ...string) []Record {
	t.Helper()
	cmd := exec.Command("node", append([]string{"readwarc.mjs"}, files...)...)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node readwarc.mjs: %v", err)
	}
	var recs []Record
	if err := json.Unmarshal(out, &recs); err != nil {
		t.Fatalf("warcio output: %v\n%s", err, out)
	}
	return recs
}
