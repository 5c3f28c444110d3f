package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // substrings of the error
	}{
		{"syntax error line", "{\n  \"threads\": 4,\n  \"cpu\": 30%\n}\n", []string{"line 3", "invalid"}},
		{"wrong type", "{\n  \"threads\": \"four\"\n}", []string{"line 2", `"threads"`}},
		{"unknown key", "{\n\n  \"dowload\": \"1MB/s\"\n}", []string{"line 3", `unknown key "dowload"`}},
		{"bad unit", "{\"download\": 1,\n \"upload\": \"5 furlongs\"}", []string{"line 2", "unknown unit"}},
		{"out of range", `{"threads": 0}`, []string{"threads must be between 1"}},
		{"overload below threads", `{"threads": 4, "overload": 2}`, []string{"overload (2) must be at least threads (4)"}},
		{"truncated", "{\"threads\": 4,", []string{"line 1", "invalid"}},
		{"trailing data", "{}\n{}", []string{"line 2", "after the closing brace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if err == nil {
				t.Fatalf("Load accepted %q: %+v", tt.file, c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if c.Threads != DefaultThreads || c.CPU != DefaultCPU {
				t.Errorf("broken file did not give defaults: %+v", c)
			}
		})
	}
}

func TestLoadMissingAndPartial(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(filepath.Join(dir, "none.json"))
	if err != nil || c.Threads != DefaultThreads || c.APIPort != DefaultAPIPort {
		t.Fatalf("missing file: %+v, %v", c, err)
	}
	path := filepath.Join(dir, "c.json")
	os.WriteFile(path, []byte(`{"download":"200KB/s","schedule":{"windows":[{"start":"20:00","end":"08:00"}]}}`), 0o600)
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Download != 200000 || c.Threads != DefaultThreads || c.BusyThreshold != DefaultBusyThreshold || len(c.Schedule.Windows) != 1 ||
		c.APIPort != DefaultAPIPort {
		t.Errorf("partial file: %+v", c)
	}
}

func TestSaveRoundTripAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	c := Default()
	c.Download = 250000
	c.SnoozeUntil = time.Date(2026, 11, 23, 14, 5, 0, 0, time.UTC)
	c.Schedule.Windows = []Window{{Days: []Day{1, 2}, Start: 18 * 60, End: 23 * 60, Upload: 1000}}
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Download != c.Download || !got.SnoozeUntil.Equal(c.SnoozeUntil) || len(got.Schedule.Windows) != 1 ||
		got.Schedule.Windows[0].End != 23*60 || got.Schedule.Windows[0].Days[1] != 2 {
		t.Errorf("round trip: %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 || entries[1].Name() != filepath.Base(GoodCopy(path)) {
		t.Errorf("want the file and its good copy, got %v", entries)
	}
	if good, _ := os.ReadFile(GoodCopy(path)); !bytes.Equal(good, mustRead(t, path)) {
		t.Error("the good copy differs from the file saved")
	}
	c.Threads = 0
	if err := Save(path, c); err == nil {
		t.Error("Save wrote an invalid config")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"download":"200KB/s","cpu":"30%","threads":4}`))
	f.Add([]byte(`{"schedule":{"windows":[{"days":["mon"],"start":"18:00","end":"06:00","download":1000}]}}`))
	f.Add([]byte("{\n\"threads\": \"x\"}"))
	f.Add([]byte(`{"snooze_until":"2026-11-23T14:05:00Z","delay":"2s","notifications":{"problems":false}}`))
	f.Add([]byte(`{"dowload":1}`))
	f.Add([]byte(`{"user_agent":"Googlebot","threads":2}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "must") {
				t.Fatalf("error %q has neither a position nor a rule", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid config: %v", err)
		}
		// What parses saves, and what is saved parses to the same thing.
		path := filepath.Join(t.TempDir(), "c.json")
		if err := Save(path, c); err != nil {
			t.Fatal(err)
		}
		saved, _ := os.ReadFile(path)
		c2, err := Parse(saved)
		if err != nil {
			t.Fatalf("saved config does not parse: %v\n%s", err, saved)
		}
		again, _ := os.ReadFile(path)
		if err := Save(path, c2); err != nil {
			t.Fatal(err)
		}
		twice, _ := os.ReadFile(path)
		if !bytes.Equal(again, twice) {
			t.Fatalf("save is not stable:\n%s\n%s", again, twice)
		}
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
