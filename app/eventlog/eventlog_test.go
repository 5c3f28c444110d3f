package eventlog

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEventsKeptAndWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "hivecrawl.log")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	log := slog.New(l.Handler(slog.NewTextHandler(&console, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Debug("Page fetched", "url", "http://a.example/")
	log.With("part", "crawler").WithGroup("task").Info("Task done", "pages", 12, slog.Group("lease", "epoch", 3))
	log.Warn("Upload failed", "err", "connection refused")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	ev := l.Recent(10)
	if len(ev) != 2 || ev[0].Message != "Upload failed" || ev[0].Level != "WARN" || ev[1].Message != "Task done" {
		t.Fatalf("events %+v, want the warning then the info, no debug", ev)
	}
	if got := strings.Join(ev[1].Attrs, " "); got != "part=crawler task.pages=12 task.lease.epoch=3" {
		t.Errorf("attributes %q", got)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(file), "\n"); lines != 2 || strings.Contains(string(file), "Page fetched") || !strings.Contains(string(file), "task.lease.epoch=3") {
		t.Errorf("log file (%d lines):\n%s", lines, file)
	}
	if !strings.Contains(console.String(), "Page fetched") {
		t.Errorf("the console handler lost the debug record:\n%s", console.String())
	}
}

func TestRingKeepsTheLatest(t *testing.T) {
	l, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(l.Handler(slog.DiscardHandler))
	for i := range Keep + 7 {
		log.Info(fmt.Sprint(i))
	}
	ev := l.Recent(Keep + 100)
	if len(ev) != Keep || ev[0].Message != fmt.Sprint(Keep+6) || ev[Keep-1].Message != "7" {
		t.Fatalf("%d events, newest %q, oldest %q", len(ev), ev[0].Message, ev[len(ev)-1].Message)
	}
	if ev := l.Recent(3); len(ev) != 3 || ev[2].Message != fmt.Sprint(Keep+4) {
		t.Fatalf("Recent(3) = %+v", ev)
	}
}

func TestUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	if _, err := Open(filepath.Join(blocker, "hivecrawl.log")); err == nil || !strings.Contains(err.Error(), "event log") {
		t.Fatalf("Open under a file = %v, want a clear error", err)
	}
}

func TestFileRotates(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(filepath.Join(dir, "hivecrawl.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(l.Handler(slog.DiscardHandler))
	line := strings.Repeat("x", 1000)
	for range MaxSizeMB*1024 + 10 {
		log.Info("Filler", "x", line)
	}
	l.Close()
	// The rotated file is compressed in the background: wait for it, so
	// the test's directory is not written after the test.
	deadline := time.Now().Add(30 * time.Second)
	for {
		gz, _ := filepath.Glob(filepath.Join(dir, "hivecrawl-*.log.gz"))
		plain, _ := filepath.Glob(filepath.Join(dir, "hivecrawl-*.log"))
		if len(gz) == 1 && len(plain) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d MB: compressed %v, not yet %v; want one compressed old log", MaxSizeMB+1, gz, plain)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := os.Stat(filepath.Join(dir, "hivecrawl.log"))
	if err != nil || st.Size() > MaxSizeMB<<20 {
		t.Fatalf("current log: %v, %v", st, err)
	}
}
