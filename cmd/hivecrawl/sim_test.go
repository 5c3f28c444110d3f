package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimRecrawlWritesResults(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := simMain([]string{"recrawl-rec", "--scale", "0.03", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"summary.md", "tasks.csv", "series.csv", "fig4-queued.svg", "fig4-throughput.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", f, err, len(b))
		}
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"Table 1", "FIXED", "ICR", "Controller"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestSimUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := simMain([]string{"no-such"}, &out, &errb); code != 2 {
		t.Fatalf("unknown experiment: exit %d", code)
	}
	if code := simMain(nil, &out, &errb); code != 2 {
		t.Fatalf("no experiment: exit %d", code)
	}
}

func TestSimWebFountain(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := simMain([]string{"webfountain", "--scale", "0.1", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	sum, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(sum), "Table 3") {
		t.Fatalf("summary: %v\n%s", err, sum)
	}
}

func TestSimAssignment(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := simMain([]string{"assignment", "--scale", "0.05", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"summary.md", "fig15-rate.svg", "fig21-recrawls-cdf.svg", "fig22b-per-crawler.svg", "scalability.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSimSameSeedSameBytes runs every experiment twice, into two folders,
// at a small scale: every file must come out byte for byte the same, and
// the summary must not name the folder, as `make check-results` compares
// the committed results with a fresh run written elsewhere.
func TestSimSameSeedSameBytes(t *testing.T) {
	for _, args := range [][]string{{"webfountain"}, {"assignment"}, {"recrawl-rec"}, {"recrawl-ruc", "--count-all"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var dirs [2]string
			for i := range dirs {
				dirs[i] = t.TempDir()
				var out, errb bytes.Buffer
				run := append(append([]string(nil), args...), "--scale", "0.02", "--out", dirs[i])
				if code := simMain(run, &out, &errb); code != 0 {
					t.Fatalf("exit %d: %s", code, errb.String())
				}
			}
			files, err := os.ReadDir(dirs[0])
			if err != nil || len(files) == 0 {
				t.Fatalf("no results written: %v", err)
			}
			for _, f := range files {
				a, _ := os.ReadFile(filepath.Join(dirs[0], f.Name()))
				b, err := os.ReadFile(filepath.Join(dirs[1], f.Name()))
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s differs between two runs with the same seed (%v)", f.Name(), err)
				}
			}
			sum, _ := os.ReadFile(filepath.Join(dirs[0], "summary.md"))
			if strings.Contains(string(sum), dirs[0]) || strings.Contains(string(sum), "wall time") {
				t.Errorf("the summary names its folder or its run time:\n%.300s", sum)
			}
		})
	}
}
